import { Readable } from 'node:stream';
import pg from 'pg';
import { shapedStatement } from './shapedStatement.js';

/**
 * The most rows a page read by readPageRows may hold: it has no flow control, and rows cost the
 * server more per item than COPY text, while a COPY is parsed and planned at every request
 * (about half of the database's CPU for a poll that found nothing new, benchmarks/RESULTS.md,
 * "Polls of a client up to date"). Longer pages are read by COPY.
 */
export const ROWS_PAGE_MAX = 100;

/** A row as its values' text (null for NULL), in its statement's column order. */
export type RowValues = Array<string | null>;

/** Every value as the text PostgreSQL sent (the dates in ISO form: bindForCopy sets it). */
const AS_TEXT = { getTypeParser: () => (value: string) => value };

/**
 * A small page (of QSOs, of changes) read by a named statement instead of a COPY, which was
 * planned at every request (0.5–1.8 ms of a JSON page's database time, benchmarks/RESULTS.md).
 * The page's statement reads its values from settings (bindForCopy) and so takes no parameters:
 * PostgreSQL plans it once per connection, for the values of the first page it reads (it
 * estimates with the settings' values), and keeps that plan; the caller sends only pages any
 * values suit (the list planner's 'kept-rows', lib/qso/list/plan.ts; the change feed's small pages,
 * pageOutlook in lib/qso/changeFeed.ts).
 *
 * Rows come as arrays of their values' text, without flow control: a page must stay small (the
 * caller's bound). The rows of one network read go on as one chunk of the object-mode stream (a
 * chunk a row had cost more in small writes to the client than planning saved). Resolves once
 * the first rows, the end or an error has arrived, so that a statement that fails rejects here,
 * before an answer is committed to 200. Call inside the transaction that bound the statement's
 * values.
 */
export function readPageRows(client: pg.PoolClient, text: string): Promise<Readable> {
  const rows = new Readable({ objectMode: true, read() {} });
  const config: pg.QueryArrayConfig = { ...shapedStatement(client, text, []), rowMode: 'array', types: AS_TEXT };
  const query = client.query(new pg.Query<RowValues>(config));
  return new Promise((resolve, reject) => {
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      resolve(rows);
    };
    let batch: RowValues[] | null = null;
    // node-postgres emits the rows of a read one after the other, in one go.
    const pushBatch = () => {
      rows.push(batch);
      batch = null;
      start();
    };
    query.on('row', (row) => {
      if (batch === null) {
        batch = [];
        process.nextTick(pushBatch);
      }
      batch.push(row);
    });
    query.on('end', () => {
      // After the last batch, which its tick has not pushed yet.
      process.nextTick(() => {
        rows.push(null);
        start();
      });
    });
    // Before the first rows the caller answers the error; after them, the stream's reader does.
    query.on('error', (error) => process.nextTick(() => (started ? rows.destroy(error) : reject(error))));
  });
}
