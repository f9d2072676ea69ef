import { pipeline, type Readable, type Transform } from 'node:stream';
import type { Context } from 'koa';
import type pg from 'pg';
import type { ReadAheadBudget } from '../../../readAhead.js';
import { begin } from '../../../../db/transaction.js';

/**
 * A list's count and its page are read in one read-only REPEATABLE READ transaction, so
 * `meta.total` and the rows describe the same state of the logbook even while imports run.
 */

export async function beginSnapshot(client: pg.PoolClient): Promise<void> {
  await begin(client, 'ISOLATION LEVEL REPEATABLE READ READ ONLY');
}

/** Ends the snapshot and returns the connection; one that failed (or was left mid-cursor) is discarded. */
export function endSnapshot(client: pg.PoolClient, error: Error | null | undefined): void {
  if (error) {
    client.release(error);
    return;
  }
  client.query('COMMIT').then(
    () => client.release(),
    (commitError: Error) => client.release(commitError),
  );
}

/**
 * Answers 200 with `body`, JSON fed by `rows` read in `client`'s snapshot: the snapshot ends
 * when the body is complete, or is discarded with its connection when the client goes away (or
 * the database fails) mid-page. The body is read ahead of the client through what `readAhead`
 * lends (ReadAheadBudget.aheadOf): such a page ends its snapshot and gives its connection back
 * as fast as the database sends it, however slowly its client reads.
 */
export function answerFromSnapshot(ctx: Context, client: pg.PoolClient, rows: Readable, body: Transform, readAhead: ReadAheadBudget): undefined {
  const ahead = readAhead.aheadOf(ctx.res);
  // The pipeline ends once the last stream has taken everything in, not once it was read.
  pipeline(rows, body, ahead, (error) => endSnapshot(client, error));
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = ahead;
  return undefined;
}
