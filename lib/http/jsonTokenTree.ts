import type { Token } from 'stream-json/parser.js';

/**
 * Turns stream-json tokens back into a JSON value, under the limits a request body needs: a
 * byte budget for what is held in memory, a nesting depth, and a rule for members named
 * `__proto__`. One top-level string member may be diverted (an ADIF text, v1's `string` or
 * v2's `adif`): its text goes to the caller's sink chunk by chunk and never into the tree or the
 * budget. Used by the v1 body reader (lib/http/v1/body.ts) and v2's POST /qso
 * (lib/http/v2/resources/qso/createBody.ts), which differ only in these rules and their errors.
 *
 * stream-json's own Assembler does not fit: it has no budget or depth limit, and it assigns
 * members with `=`, so a `__proto__` member would set the object's prototype.
 */

/** Bytes a token costs beyond its text, for the budget. */
const TOKEN_OVERHEAD = 8;

type Container = Record<string, unknown> | unknown[];

export interface TreeRules {
  /** Bytes of tokens held in memory (raised later through `budget` when a caller allows more). */
  budget: number;
  maxDepth: number;
  /** Thrown when the budget is exceeded. */
  tooLarge(budget: number): Error;
  /** Thrown when containers nest deeper than maxDepth. */
  tooDeep(): Error;
  /** `data`: kept as an ordinary member, as JSON.parse does; else the error thrown for it. */
  protoMember: 'data' | (() => Error);
  /** Absent: any JSON value may be the root; else the error thrown for a root that is not an object. */
  rootNotObject?: () => Error;
  /** Called as each top-level member of an object root is complete (not for a diverted string). */
  onTopLevelMember?(key: string, value: unknown): void;
}

export class JsonTokenTree {
  /** The value built so far; undefined until its first token. */
  root: unknown = undefined;
  budget: number;
  private readonly stack: Container[] = [];
  private key: string | null = null;
  private chunks: string[] | null = null;
  private bytes = 0;
  private diverted: { sink: (text: string) => void; end: () => void } | null = null;

  constructor(private readonly rules: TreeRules) {
    this.budget = rules.budget;
  }

  /** True when `token` starts a string that is the member `name` of an object root. */
  startsTopLevelString(token: Token, name: string): boolean {
    return token.name === 'startString' && this.stack.length === 1 && this.key === name && !Array.isArray(this.stack[0]);
  }

  /** The root when it is an object (members so far), else null. */
  get rootObject(): Record<string, unknown> | null {
    const root = this.root;
    return root !== null && typeof root === 'object' && !Array.isArray(root) ? (root as Record<string, unknown>) : null;
  }

  /**
   * Sends the string the current `startString` token opens to `sink`, chunk by chunk, instead of
   * the tree; `end` is called at its end. Call it instead of `take` for that token.
   */
  divert(sink: (text: string) => void, end: () => void): void {
    this.diverted = { sink, end };
  }

  take(token: Token): void {
    if (this.diverted) {
      if (token.name === 'stringChunk') this.diverted.sink(token.value);
      else if (token.name === 'endString') {
        const { end } = this.diverted;
        this.diverted = null;
        end();
      }
      return;
    }
    this.count('value' in token && typeof token.value === 'string' ? token.value.length : 0);
    switch (token.name) {
      case 'startObject':
        this.open({});
        break;
      case 'startArray':
        this.open([]);
        break;
      case 'endObject':
      case 'endArray':
        this.stack.pop();
        break;
      case 'keyValue':
        if (token.value === '__proto__' && this.rules.protoMember !== 'data') throw this.rules.protoMember();
        this.key = token.value;
        break;
      case 'startString':
        this.chunks = [];
        break;
      case 'stringChunk':
        this.chunks!.push(token.value);
        break;
      case 'endString':
        this.add(this.chunks!.join(''));
        this.chunks = null;
        break;
      case 'numberValue':
        this.add(Number(token.value));
        break;
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        this.add(token.value);
        break;
      default:
        break;
    }
  }

  private count(bytes: number): void {
    this.bytes += bytes + TOKEN_OVERHEAD;
    if (this.bytes > this.budget) throw this.rules.tooLarge(this.budget);
  }

  private add(value: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) {
      if (this.rules.rootNotObject && (value === null || typeof value !== 'object' || Array.isArray(value))) throw this.rules.rootNotObject();
      this.root = value;
    } else if (Array.isArray(top)) top.push(value);
    else {
      // defineProperty: a member named __proto__ (when kept) is data, never the object's prototype.
      Object.defineProperty(top, this.key!, { value, enumerable: true, writable: true, configurable: true });
      if (this.stack.length === 1) this.rules.onTopLevelMember?.(this.key!, value);
    }
  }

  private open(container: Container): void {
    this.add(container);
    this.stack.push(container);
    if (this.stack.length > this.rules.maxDepth) throw this.rules.tooDeep();
  }
}
