import { once } from 'node:events';
import type { Readable } from 'node:stream';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

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

/**
 * Readies `text` for `COPY (text) TO STDOUT` in one round trip: hands the query's parameters to
 * the server as transaction-local settings and returns the query with each `$n` reading its
 * setting; and sets the transaction's datestyle to ISO, the form in which the COPY readers
 * (lib/export, lib/qso/copyJson.ts) take dates and timestamps. Call inside a transaction.
 */
async function bindForCopy(client: Pick<pg.PoolClient, 'query'>, text: string, values: readonly unknown[]): Promise<string> {
  const calls = ["set_config('datestyle', 'ISO', true)", ...values.map((_, i) => `set_config('logbook.param_${i + 1}', $${i + 1}, true)`)];
  await client.query(`SELECT ${calls.join(', ')}`, values.map(settingText));
  return text.replace(/\$(\d+)/g, (_, n: string) => `current_setting('logbook.param_${n}')`);
}

/**
 * Starts `COPY (text) TO STDOUT` (values bound by bindForCopy; `nullAsEmpty`: NULL written as an
 * empty value) and resolves once it has produced its first rows: a statement that fails rejects
 * here, before an answer is committed to 200. Call inside a transaction.
 */
export async function copyOut(client: pg.PoolClient, text: string, values: readonly unknown[], nullAsEmpty = false): Promise<Readable> {
  const statement = `COPY (${await bindForCopy(client, text, values)}) TO STDOUT${nullAsEmpty ? " WITH (NULL '')" : ''}`;
  const rows = client.query(copyTo(statement));
  await once(rows, 'readable');
  return rows;
}
