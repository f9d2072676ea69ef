import { once } from 'node:events';
import type { Readable } from 'node:stream';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { shapedStatement } from './shapedStatement.js';

/**
 * Bound values for statements that take none, such as `COPY (SELECT …) TO STDOUT`: each value is
 * handed to the server as a setting local to the transaction (set_config with a bound value) and
 * the statement reads it back with current_setting(), so values never become SQL text. A
 * setting is text: every placeholder whose column is not text needs a cast in the statement
 * (`$1::bigint`, `$2::int[]`).
 */

/**
 * A parameter as setting text: arrays of integers in PostgreSQL's array literal form. Other
 * arrays would need quoting inside the literal, so they are refused rather than joined.
 */
function settingText(value: unknown): string {
  if (!Array.isArray(value)) return String(value);
  if (!value.every((item) => Number.isSafeInteger(item))) throw new TypeError('bindForCopy binds arrays of integers only');
  return `{${value.join(',')}}`;
}

/** A statement and its bound values. */
export interface Statement {
  text: string;
  values: readonly unknown[];
}

/**
 * Readies `page` for `COPY (text) TO STDOUT` in one round trip: hands its parameters to the
 * server as transaction-local settings and returns the text with each `$n` reading its setting;
 * and sets the transaction's datestyle to ISO, the form in which the COPY readers (lib/export,
 * lib/qso/copyJson.ts) take dates and timestamps. `alongside`, a query of one row (a list's
 * total), runs in the same statement, which returns its row: one round trip for both. Call
 * inside a transaction.
 */
export async function bindForCopy<Row extends object = Record<string, never>>(
  client: Pick<pg.PoolClient, 'query'>, page: Statement, alongside?: Statement,
): Promise<{ copyText: string; row: Row | undefined }> {
  const first = alongside?.values.length ?? 0;
  const calls = ["set_config('datestyle', 'ISO', true)", ...page.values.map((_, i) => `set_config('logbook.param_${i + 1}', $${first + i + 1}, true)`)];
  const values = [...(alongside?.values ?? []), ...page.values.map(settingText)];
  const text = alongside ? `SELECT alongside.*, ${calls.join(', ')} FROM (${alongside.text}) alongside` : `SELECT ${calls.join(', ')}`;
  const { rows } = await client.query<Row>(shapedStatement(client, text, values));
  // A query of no rows would leave the settings unset; the COPY would then fail on them.
  if (alongside && rows.length !== 1) throw new Error(`bindForCopy: the statement alongside returned ${rows.length} rows, not one`);
  return { copyText: readingSettings(page.text), row: rows[0] };
}

/**
 * A statement whose `$n` were bound by bindForCopy, reading each from its setting instead: it
 * takes no parameters, so it can also run as a named statement planned once per connection
 * (PostgreSQL estimates with the settings' values of its first use). Call inside the same
 * transaction.
 */
export function readingSettings(text: string): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => `current_setting('logbook.param_${n}')`);
}

/**
 * Starts `COPY (copyText) TO STDOUT` (a query bound by bindForCopy; `nullAsEmpty`: NULL written
 * as an empty value) and resolves once it has produced its first rows: a statement that fails
 * rejects here, before an answer is committed to 200. Call inside the transaction that bound it.
 */
export async function copyBoundOut(client: pg.PoolClient, copyText: string, nullAsEmpty = false): Promise<Readable> {
  const rows = client.query(copyTo(`COPY (${copyText}) TO STDOUT${nullAsEmpty ? " WITH (NULL '')" : ''}`));
  await once(rows, 'readable');
  return rows;
}

/** bindForCopy, then copyBoundOut: `COPY (text) TO STDOUT` with `values` bound. Call inside a transaction. */
export async function copyOut(client: pg.PoolClient, text: string, values: readonly unknown[], nullAsEmpty = false): Promise<Readable> {
  return copyBoundOut(client, (await bindForCopy(client, { text, values })).copyText, nullAsEmpty);
}
