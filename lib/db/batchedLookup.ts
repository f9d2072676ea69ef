import { opaqueArray } from './opaqueArray.js';
import { named } from './connectionSetup.js';
import { outsideQueryScope } from './queryScope.js';

/**
 * Look-ups by key answered together: the keys asked for while a look-up statement runs go into
 * the next one, each key once however many ask for it; one statement in flight per instance, and
 * a lone caller waits for nothing. A look-up never joins a statement that began before it was
 * asked, so it sees everything committed before it was asked (a token revoked a moment before
 * is refused, as it was when every request looked up its own). Used for the token and key
 * look-ups that start every authenticated request: under load, many requests pay one round trip
 * (about 0.2 ms of the API process's CPU on this machine's loopback) and one statement.
 *
 * The statement runs outside every request's QueryScope: a client going away must not terminate
 * the look-up the other requests wait for. A failed statement fails the callers of its keys.
 */

interface Waiting<V> {
  resolve(value: V | undefined): void;
  reject(error: unknown): void;
}

/** Keys per statement at most: an ANY($1) of 500 hashes is still one index probe each. */
const MAX_KEYS = 500;

export class BatchedLookup<V> {
  private readonly waiting = new Map<string, Array<Waiting<V>>>();
  private running = false;

  /** `find` answers the keys it knows; a key it leaves out is answered undefined. */
  constructor(private readonly find: (keys: string[]) => Promise<ReadonlyMap<string, V>>) {}

  get(key: string): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const callers = this.waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      this.dispatch();
    });
  }

  private dispatch(): void {
    if (this.running || this.waiting.size === 0) return;
    const batch = new Map<string, Array<Waiting<V>>>();
    for (const [key, callers] of this.waiting) {
      if (batch.size === MAX_KEYS) break;
      batch.set(key, callers);
      this.waiting.delete(key);
    }
    this.running = true;
    const settle = (answer: (callers: Waiting<V>[], key: string) => void) => {
      // The turn passes on before the callers resume, so that what they ask next finds it free.
      this.running = false;
      this.dispatch();
      for (const [key, callers] of batch) answer(callers, key);
    };
    void outsideQueryScope(async () => this.find([...batch.keys()])).then(
      (found) => settle((callers, key) => callers.forEach((caller) => caller.resolve(found.get(key)))),
      (error: unknown) => settle((callers) => callers.forEach((caller) => caller.reject(error))),
    );
  }
}

/** A look-up statement in its two named forms: for one key, and for several. */
export interface LookupStatements {
  one: { name: string; text: string };
  several: { name: string; text: string };
}

/**
 * `sql(match)` with the key column's condition as `= $1` and as `= ANY(…)` of an opaqueArray:
 * each planned once per connection (with a plain array parameter the array form was planned anew
 * at every execution, 0.5 ms of the database's CPU per request, more than running it). The
 * one-key form is what a look-up is unless requests arrive together.
 */
export function lookupStatements(name: string, sql: (match: string) => string): LookupStatements {
  return {
    one: { name: `${name}-one`, text: sql('= $1') },
    several: { name, text: sql(`= ANY(${opaqueArray('$1', 'text')})`) },
  };
}

/** The query for these keys on `db`: the one-key form for one. */
export function namedLookup(db: object, statements: LookupStatements, keys: readonly string[]): { name?: string; text: string; values: unknown[] } {
  return keys.length === 1 ? { ...named(db, statements.one), values: [keys[0]] } : { ...named(db, statements.several), values: [keys] };
}
