import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Token } from 'stream-json/parser.js';
import { MAX_JSON_DEPTH } from '../body.js';
import { JsonTokenTree } from '../jsonTokenTree.js';
import { createTokenizer, END_OF_INPUT, type Tokenizer } from '../jsonTokenizer.js';
import { SpoolFile } from '../spool.js';
import { writeWithBackPressure } from '../../export/backPressure.js';
import { failed } from './call.js';

/**
 * Reads a v1 body as it arrives. The v1 key sits inside the JSON body, so the body is
 * tokenised in a stream (stream-json) rather than buffered: the key is checked the moment its
 * member is complete, a refused key stops the reading, members read before an accepted key may
 * take only PRE_KEY_JSON_BYTES of memory, and one top-level string member (api/qso's ADIF
 * `string`) stays out of the member budget: kept in memory while small, else spooled to disk.
 */

/** Member bytes (keys, scalars) a body may hold in memory before a key is accepted. */
export const PRE_KEY_JSON_BYTES = 64 * 1024;
/** Characters of the text member kept in memory; beyond that it goes to a spool file. */
export const TEXT_IN_MEMORY_CHARS = 256 * 1024;

/** A stateful rewrite of the body text, fed chunk by chunk (`last` on the final, possibly empty, one). */
export type TextFilter = (chunk: string, last: boolean) => string;

/** The text member, read back once the body is complete. */
export interface V1Text {
  /** The whole text when it stayed in memory, else null (read it with `open`). */
  readonly text: string | null;
  open(): Readable;
  /** Removes a spool file; call once done with the text. */
  discard(): Promise<void>;
}

/** A v1 request body, or why there is none. */
export type V1Body =
  /** `text`: the text member when the call named one and the body carried it as a string. */
  | { kind: 'json'; value: unknown; text: V1Text | null }
  | { kind: 'empty' }
  /** Undecodable, over-deep or malformed: PHP's json_decode gave NULL for all of these. */
  | { kind: 'invalid' }
  /** The key was refused and reading stopped: the top-level members read before it. */
  | { kind: 'refused'; members: Record<string, unknown> };

export interface V1BodyOptions {
  /** The whole body (413 beyond). */
  maxBodyBytes: number;
  /** Members other than the text member, once a key is accepted (413 beyond). */
  maxJsonBytes: number;
  /** A key was already accepted (from the URL): the full member budget applies from the start. */
  keyAccepted: boolean;
  /** Judges the top-level `key` member once complete; false stops the reading. */
  checkKey?: (key: unknown) => Promise<boolean>;
  /** Name of the top-level string member kept out of memory. */
  textMember?: string;
  /** Folder for spool files. */
  spoolFolder: string;
  filter?: TextFilter;
}

/** Bytes a body whose answer is decided may still send (at least), so that clients read it. */
const DRAIN_FLOOR_BYTES = 1024 * 1024;

/**
 * Reads and drops the rest of a body whose answer is already decided, so that the client,
 * still sending, gets to read it; the connection is destroyed once more than `allowance`
 * (at least DRAIN_FLOOR_BYTES) further bytes arrive: bounded, and never held.
 */
function drain(req: IncomingMessage, allowance: number): void {
  let left = Math.max(allowance, DRAIN_FLOOR_BYTES);
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) req.socket.destroy();
  });
  req.resume();
}

class InvalidJson extends Error {}
class KeyRefused extends Error {}

/**
 * Where the text member's characters go: memory first, a spool file once it passes
 * TEXT_IN_MEMORY_CHARS. Characters are collected per input chunk and written in one piece.
 */
class TextSink {
  private parts: string[] = [];
  private size = 0;
  private spool: SpoolFile | null = null;

  constructor(private readonly folder: string) {}

  append(text: string): void {
    this.parts.push(text);
    this.size += text.length;
  }

  async flush(): Promise<void> {
    if (!this.spool && this.size <= TEXT_IN_MEMORY_CHARS) return;
    this.spool ??= await SpoolFile.create(this.folder);
    const held = this.parts.join('');
    this.parts = [];
    await writeWithBackPressure(this.spool.file, held);
  }

  async finish(): Promise<V1Text> {
    await this.flush();
    const { spool } = this;
    if (!spool) {
      const text = this.parts.join('');
      return { text, open: () => Readable.from([text]), discard: async () => undefined };
    }
    await spool.close();
    return { text: null, open: () => spool.open(), discard: () => spool.discard() };
  }

  async discard(): Promise<void> {
    await this.spool?.discard();
  }
}

/** Builds the JSON value from tokens (./jsonTokenTree.ts), routing the top-level text member to a TextSink. */
class Assembler {
  private readonly tree: JsonTokenTree;
  text: TextSink | null = null;
  /** Sinks of a text member that appeared again (the last one wins, as in JSON.parse). */
  readonly replaced: TextSink[] = [];
  /** The completed top-level `key` member, until the reader has judged it. */
  pendingKey: { value: unknown } | null = null;

  constructor(budget: number, private readonly textMember: string | undefined, private readonly spoolFolder: string) {
    this.tree = new JsonTokenTree({
      budget,
      maxDepth: MAX_JSON_DEPTH,
      tooLarge: (limit) => failed(413, `Request body members exceed the limit of ${limit} bytes`),
      // Over-deep is "no JSON", as json_decode's NULL was.
      tooDeep: () => new InvalidJson(),
      // A member named __proto__ is data, as json_decode keeps it.
      protoMember: 'data',
      onTopLevelMember: (key, value) => {
        if (key === 'key') this.pendingKey = { value };
      },
    });
  }

  get root(): unknown {
    return this.tree.root;
  }

  set budget(bytes: number) {
    this.tree.budget = bytes;
  }

  take(token: Token): void {
    if (this.textMember === undefined || !this.tree.startsTopLevelString(token, this.textMember)) return this.tree.take(token);
    if (this.text) this.replaced.push(this.text);
    delete this.tree.rootObject![this.textMember];
    const sink = (this.text = new TextSink(this.spoolFolder));
    this.tree.divert((chunk) => sink.append(chunk), () => undefined);
  }

  async discard(): Promise<void> {
    for (const sink of [...this.replaced.splice(0), this.text]) await sink?.discard();
  }

  /** The top-level members read so far (none when the body is not an object). */
  members(): Record<string, unknown> {
    return this.tree.rootObject ?? {};
  }
}

/**
 * Reads and judges the body the way PHP's json_decode did: empty, undecodable, over-deep or
 * malformed input are "no JSON"; which answer that gets is up to the call. Throws the v1 413
 * answer for a body or member budget exceeded. Stops at a refused key (`refused`); the rest of
 * the body is then drained (see drain), never held.
 */
export async function readV1Body(req: IncomingMessage, options: V1BodyOptions): Promise<V1Body> {
  const tooLarge = () => failed(413, `Request body exceeds the limit of ${options.maxBodyBytes} bytes`);
  if (Number(req.headers['content-length'] ?? 0) > options.maxBodyBytes) {
    drain(req, options.maxBodyBytes);
    throw tooLarge();
  }
  const tokenize = createTokenizer();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const body = new Assembler(options.keyAccepted ? options.maxJsonBytes : PRE_KEY_JSON_BYTES, options.textMember, options.spoolFolder);
  let keyPending = !options.keyAccepted && options.checkKey !== undefined;
  let sawText = false;
  let bytes = 0;

  const consume = async (input: string | symbol) => {
    if (typeof input === 'string') {
      if (input.trim() !== '') sawText = true;
      if (input === '') return;
    }
    let output: ReturnType<Tokenizer>;
    try {
      output = tokenize(input);
    } catch {
      throw new InvalidJson();
    }
    if (typeof output === 'symbol') return;
    for (const token of output.values) {
      body.take(token);
      const seen = body.pendingKey;
      if (seen === null) continue;
      body.pendingKey = null;
      if (!keyPending) continue;
      keyPending = false;
      if (!(await options.checkKey!(seen.value))) throw new KeyRefused();
      body.budget = options.maxJsonBytes;
    }
    await body.text?.flush();
    for (const sink of body.replaced.splice(0)) await sink.discard();
  };
  const decode = (chunk: Buffer | null) => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new InvalidJson();
    }
  };
  const filter = (text: string, last: boolean) => (options.filter ? options.filter(text, last) : text);

  try {
    // Not destroyed when reading stops early: the answer still goes out on this connection.
    for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > options.maxBodyBytes) throw tooLarge();
      await consume(filter(decode(chunk), false));
    }
    await consume(filter(decode(null), true));
    if (!sawText) {
      await body.discard();
      return { kind: 'empty' };
    }
    await consume(END_OF_INPUT);
  } catch (error) {
    drain(req, options.maxBodyBytes - bytes);
    await body.discard();
    if (error instanceof InvalidJson) return { kind: 'invalid' };
    if (error instanceof KeyRefused) return { kind: 'refused', members: body.members() };
    throw error;
  }
  // json_decode('null') is NULL, which the original could not tell from a parse error.
  if (body.root === null || body.root === undefined) {
    await body.discard();
    return { kind: 'invalid' };
  }
  const text = body.text ? await body.text.finish() : null;
  return { kind: 'json', value: body.root, text };
}
