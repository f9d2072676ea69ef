import { createHash } from 'node:crypto';
import type pg from 'pg';
import { named } from './connectionSetup.js';

/**
 * Named statements for queries built from a request's filters, whose text says which filters
 * and never their values (a shape): PostgreSQL parses each shape once per connection and plans
 * it per use only while that beats its generic plan (the plan cache: five custom plans, then the
 * generic one where it is estimated no costlier). A small list's statements had spent more time
 * planned than run: 1–2.5 ms of planning each for a page read in 0.5 ms (benchmarks/RESULTS.md).
 *
 * A prepared statement holds 100–170 bytes of its backend's memory per character of its text
 * (measured: a list's total of 463 characters 64 kB, a JSON page of 2,000–3,300 340–440 kB, a
 * confirmation page of 4,700 about 670 kB) for as long as the connection lives. So each key (a
 * connection, or a pool: its shapes are then prepared on each of its connections) names shapes
 * of at most MAX_NAMED_TEXT characters in all, the first it meets (about twenty JSON pages with
 * their totals, a dozen confirmation pages), and sends any other unnamed, planned at each use as
 * before: about 10 MB of a backend, twice that for a connection used through its pool and on
 * its own.
 */
export const MAX_NAMED_TEXT = 64 * 1024;

/** The shapes each connection or pool names, and the length of their texts. */
const shapesOf = new WeakMap<object, { names: Set<string>; length: number }>();

/** `text` with `values` as a query config for `db`: named by the text's hash while `db` has room (through named()). */
export function shapedStatement(db: object, text: string, values: unknown[]): pg.QueryConfig<unknown[]> {
  const name = `shape_${createHash('sha1').update(text).digest('base64url')}`;
  let shapes = shapesOf.get(db);
  if (shapes === undefined) shapesOf.set(db, (shapes = { names: new Set(), length: 0 }));
  if (!shapes.names.has(name)) {
    if (shapes.length + text.length > MAX_NAMED_TEXT) return { text, values };
    shapes.names.add(name);
    shapes.length += text.length;
  }
  return named(db, { name, text, values });
}
