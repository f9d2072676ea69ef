import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * Named statements for queries built from a request's filters, whose text says which filters
 * and never their values (a shape): PostgreSQL parses each shape once per connection and plans
 * it per use only while that beats its generic plan (the plan cache: five custom plans, then the
 * generic one where it is estimated no costlier). A small list's statements had spent more time
 * planned than run: 1–2.5 ms of planning each for a page read in 0.5 ms (benchmarks/RESULTS.md).
 *
 * A prepared statement costs its backend about 100 kB (a list's, measured) for as long as the
 * connection lives, so each key (a connection, or a pool: its shapes are then prepared on each of
 * its connections) names at most MAX_NAMED shapes, the first it meets, and sends any other
 * unnamed, planned at each use as before. A connection used through its pool and on its own
 * holds at most twice that: 13 MB.
 */
export const MAX_NAMED = 64;

/** The shapes named per connection or pool (a pool's shapes are named on each of its connections). */
const named = new WeakMap<object, Set<string>>();

/** `text` with `values` as a query config for `db`: named by the text's hash while `db` has room. */
export function shapedStatement(db: object, text: string, values: unknown[]): pg.QueryConfig<unknown[]> {
  const name = `shape_${createHash('sha1').update(text).digest('base64url')}`;
  let names = named.get(db);
  if (names === undefined) named.set(db, (names = new Set()));
  if (!names.has(name)) {
    if (names.size >= MAX_NAMED) return { text, values };
    names.add(name);
  }
  return { name, text, values };
}

