import type pg from 'pg';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
import { SQL_TYPE } from '../db/qsoColumns.js';
import { INSERT_COLUMNS } from './rowValues.js';

/**
 * The database half of an import, inside the caller's transaction: rows are COPYed into a
 * private temporary table (no indexes, no WAL, invisible to other sessions), then moved into
 * `qso` by one set-based INSERT whose ON CONFLICT DO NOTHING lets the unique index
 * qso_dupe_key drop rows a concurrent writer stored first.
 */

const COLUMN_LIST = INSERT_COLUMNS.map((column) => column.name).join(', ');

/** Serialises imports into one station location (first key of the two-key advisory lock). */
const IMPORT_LOCK_CLASS = 0x51_0a;

/**
 * Waits for other imports into the same location to end, so that the duplicate index loaded
 * next sees their rows and two imports never interleave (interleaved inserts of the same keys in
 * different orders would deadlock). Released at commit or rollback.
 */
export async function lockStationForImport(client: pg.PoolClient, stationId: number): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, $2)', [IMPORT_LOCK_CLASS, stationId]);
}

export async function createStagingTable(client: pg.PoolClient): Promise<void> {
  const definitions = INSERT_COLUMNS.map((column) => `${column.name} ${SQL_TYPE[column.kind]}`).join(', ');
  await client.query(`CREATE TEMPORARY TABLE import_staging (${definitions}) ON COMMIT DROP`);
}

/** The COPY stream rows in copyText format go into. */
export function stagingCopyStream(client: pg.PoolClient): CopyStreamQuery {
  return client.query(copyFrom(`COPY import_staging (${COLUMN_LIST}) FROM STDIN`));
}

export interface StoredRange {
  stored: number;
  firstId: number | null;
  lastId: number | null;
}

/** Moves the staged rows into `qso` in the order they were staged; conflicting rows are left out. */
export async function storeStagedRows(client: pg.PoolClient, stationId: number): Promise<StoredRange> {
  const { rows } = await client.query<{ stored: number; first_id: string | number | null; last_id: string | number | null }>(
    `WITH stored AS (
       INSERT INTO qso (station_id, ${COLUMN_LIST})
       SELECT $1, ${COLUMN_LIST} FROM import_staging
       ON CONFLICT DO NOTHING
       RETURNING id
     )
     SELECT count(*)::int AS stored, min(id) AS first_id, max(id) AS last_id FROM stored`,
    [stationId],
  );
  const { stored, first_id: firstId, last_id: lastId } = rows[0]!;
  return { stored, firstId: firstId === null ? null : Number(firstId), lastId: lastId === null ? null : Number(lastId) };
}
