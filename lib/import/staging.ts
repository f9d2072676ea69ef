import { once } from 'node:events';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
import { SQL_TYPE } from '../db/qsoColumns.js';
import { INSERT_COLUMNS } from './rowValues.js';

/**
 * The database half of an import, inside the caller's transaction: rows are COPYed into a
 * private temporary table (no indexes, no WAL, invisible to other sessions), then moved into
 * `qso` by set-based INSERTs. The duplicate index already left out every stored duplicate, so
 * a batch is inserted plainly, inside a savepoint; only if a concurrent writer stored one of its
 * QSOs meanwhile (the unique index qso_dupe_key objects) is the batch inserted again with
 * ON CONFLICT DO NOTHING, which drops such rows. ON CONFLICT's speculative insertion costs
 * PostgreSQL 20-25 % more per row, so it is kept for that race.
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

export interface StoredRange {
  stored: number;
  firstId: number | null;
  lastId: number | null;
}

const UNIQUE_VIOLATION = '23505';

async function insertStagedRows(client: pg.PoolClient, stationId: number, onConflict: string): Promise<StoredRange> {
  const { rows } = await client.query<{ stored: number; first_id: string | number | null; last_id: string | number | null }>(
    `WITH stored AS (
       INSERT INTO qso (station_id, ${COLUMN_LIST})
       SELECT $1, ${COLUMN_LIST} FROM import_staging
       ${onConflict}
       RETURNING id
     )
     SELECT count(*)::int AS stored, min(id) AS first_id, max(id) AS last_id FROM stored`,
    [stationId],
  );
  const { stored, first_id: firstId, last_id: lastId } = rows[0]!;
  return { stored, firstId: firstId === null ? null : Number(firstId), lastId: lastId === null ? null : Number(lastId) };
}

/** Moves the staged rows into `qso` in the order they were staged, conflicting rows left out, and empties the staging table. */
async function storeStagedRows(client: pg.PoolClient, stationId: number): Promise<StoredRange> {
  await client.query('SAVEPOINT store_batch');
  let stored: StoredRange;
  try {
    stored = await insertStagedRows(client, stationId, '');
  } catch (error) {
    if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    await client.query('ROLLBACK TO SAVEPOINT store_batch');
    stored = await insertStagedRows(client, stationId, 'ON CONFLICT DO NOTHING');
  }
  await client.query('RELEASE SAVEPOINT store_batch');
  await client.query('TRUNCATE import_staging');
  return stored;
}

/** Rows per COPY into the staging table before they are moved on. */
const ROWS_PER_BATCH = 25_000;
/**
 * COPY text the writer queues while PostgreSQL moves a batch: the reader and normaliser keep
 * working meanwhile instead of waiting, and memory stays bounded.
 */
const QUEUED_BYTES = 8 * 1024 * 1024;
const NEWLINE = 0x0a;

function countRows(chunk: Buffer): number {
  let rows = 0;
  for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) rows++;
  return rows;
}

/**
 * The end of the import pipeline: COPY text in; batches of rows COPYed into the staging table
 * and moved into `qso` by one INSERT each. While a batch is moved, further rows queue here
 * (up to QUEUED_BYTES), so JavaScript and PostgreSQL work at the same time; beyond that the
 * queue's back-pressure pauses the input.
 */
export class StagingWriter extends Writable {
  private copy: CopyStreamQuery | null = null;
  private rowsInBatch = 0;
  readonly stored: StoredRange = { stored: 0, firstId: null, lastId: null };

  constructor(
    private readonly client: pg.PoolClient,
    private readonly stationId: number,
  ) {
    super({ highWaterMark: QUEUED_BYTES });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.writeRows(chunk).then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.storeBatch().then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // An unfinished COPY is abandoned: pg-copy-streams tells the server it failed.
    this.copy?.destroy(error ?? undefined);
    callback(error);
  }

  private async writeRows(chunk: Buffer): Promise<void> {
    if (this.copy === null) {
      this.copy = this.client.query(copyFrom(`COPY import_staging (${COLUMN_LIST}) FROM STDIN`));
      // A server error can arrive between writes: it ends the import.
      this.copy.on('error', (error) => this.destroy(error));
    }
    if (!this.copy.write(chunk)) await once(this.copy, 'drain');
    this.rowsInBatch += countRows(chunk);
    if (this.rowsInBatch >= ROWS_PER_BATCH) await this.storeBatch();
  }

  private async storeBatch(): Promise<void> {
    const copy = this.copy;
    if (copy === null) return;
    this.copy = null;
    this.rowsInBatch = 0;
    copy.end();
    await finished(copy);
    const batch = await storeStagedRows(this.client, this.stationId);
    this.stored.stored += batch.stored;
    if (batch.firstId !== null) {
      this.stored.firstId = Math.min(this.stored.firstId ?? batch.firstId, batch.firstId);
      this.stored.lastId = Math.max(this.stored.lastId ?? batch.lastId!, batch.lastId!);
    }
  }
}
