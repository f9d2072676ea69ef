import type pg from 'pg';
import { named } from '../db/connectionSetup.js';
import { inTransaction } from '../db/transaction.js';

/**
 * Declares that the current transaction may write QSOs of these owners (user ids owning the
 * station locations). It must come before the transaction writes anything at all: it publishes
 * the transaction to readers of the change feed and of since_id pages (sql/007_change_feed.sql,
 * docs/change-feed.md), which cut their pages below every such writer until it has ended. The
 * database refuses a QSO write whose transaction has not made this call.
 */
export async function beginQsoWrite(client: pg.ClientBase, ownerUserIds: readonly number[]): Promise<void> {
  await client.query({ ...named(client, { name: 'qso-write-begin', text: 'SELECT qso_write_begin($1::int[])' }), values: [ownerUserIds] });
}

/**
 * Declares the write for the owners of these station locations (one round trip). Both forms are
 * named: every PATCH, DELETE, import and merge runs one, and sent unnamed each was parsed and
 * planned every time.
 */
export async function beginQsoWriteForStations(client: pg.ClientBase, stationIds: readonly number[]): Promise<void> {
  await client.query({
    ...named(client, {
      name: 'qso-write-begin-for-stations',
      text: 'SELECT qso_write_begin(ARRAY(SELECT DISTINCT user_id FROM stations WHERE id = ANY($1::int[])))',
    }),
    values: [stationIds],
  });
}

/**
 * The declaration inside a single statement, for a write that needs no transaction around it:
 * `${qsoWriterCte(n)} INSERT INTO qso … SELECT … FROM qso_writer …`, parameter n being the owners'
 * user ids. The INSERT cannot form a row before it has read qso_writer's one row, so the
 * declaration runs before the statement draws an id or writes anything; one round trip instead
 * of four (BEGIN, the declaration, the write, COMMIT).
 */
export function qsoWriterCte(ownersParam: number): string {
  return `WITH qso_writer AS MATERIALIZED (SELECT qso_write_begin($${ownersParam}::int[]))`;
}

type Work<T> = (client: pg.PoolClient) => Promise<T>;

function declaredTransaction<T>(pool: pg.Pool, declare: (client: pg.PoolClient) => Promise<void>, work: Work<T>): Promise<T> {
  return inTransaction(pool, async (client) => {
    await declare(client);
    return work(client);
  });
}

/** `work` in one transaction that has declared, first of all, that it writes QSOs of these owners. */
export function inQsoTransaction<T>(pool: pg.Pool, ownerUserIds: readonly number[], work: Work<T>): Promise<T> {
  return declaredTransaction(pool, (client) => beginQsoWrite(client, ownerUserIds), work);
}

/** inQsoTransaction for the owners of these station locations. */
export function inStationQsoTransaction<T>(pool: pg.Pool, stationIds: readonly number[], work: Work<T>): Promise<T> {
  return declaredTransaction(pool, (client) => beginQsoWriteForStations(client, stationIds), work);
}
