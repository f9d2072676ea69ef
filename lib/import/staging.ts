import { once } from 'node:events';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
import { SQL_TYPE } from '../db/qsoColumns.js';
import { INSERT_COLUMNS, MATCH_COLUMNS } from './rowValues.js';
import { TextSlabs, type TextPiece } from './textSlabs.js';

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
/** What the COPY writes: the insert columns, then the match columns (rowValues.ts). */
const STAGED_COLUMN_LIST = [...INSERT_COLUMNS, ...MATCH_COLUMNS].map((column) => column.name).join(', ');

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

/** lockStationForImport without waiting: false when another import holds the location. */
export async function tryLockStationForImport(client: pg.PoolClient, stationId: number): Promise<boolean> {
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS locked', [IMPORT_LOCK_CLASS, stationId]);
  return rows[0]!.locked;
}

export async function createStagingTable(client: pg.PoolClient): Promise<void> {
  const definitions = [
    ...INSERT_COLUMNS.map((column) => `${column.name} ${SQL_TYPE[column.kind]}`),
    ...MATCH_COLUMNS.map((column) => `${column.name} ${column.type}`),
  ].join(', ');
  await client.query(`CREATE TEMPORARY TABLE import_staging (${definitions}) ON COMMIT DROP`);
  // The QSOs this import's matching has confirmed so far (lib/import/matchBatch.ts).
  await client.query('CREATE TEMPORARY TABLE import_claims (qso_id bigint PRIMARY KEY) ON COMMIT DROP');
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
       SELECT $1, ${COLUMN_LIST} FROM import_staging WHERE match_record IS NULL
       ${onConflict}
       RETURNING id
     )
     SELECT count(*)::int AS stored, min(id) AS first_id, max(id) AS last_id FROM stored`,
    [stationId],
  );
  const { stored, first_id: firstId, last_id: lastId } = rows[0]!;
  return { stored, firstId: firstId === null ? null : Number(firstId), lastId: lastId === null ? null : Number(lastId) };
}

/** Moves the staged rows to insert into `qso` in the order they were staged, conflicting rows left out. */
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
  return stored;
}

/** A dry run's batch: how many staged rows an INSERT would take (conflicts with concurrent writers aside). */
async function countStagedRows(client: pg.PoolClient): Promise<StoredRange> {
  const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM import_staging WHERE match_record IS NULL');
  return { stored: rows[0]!.n, firstId: null, lastId: null };
}

export interface StagingOptions {
  /** Count the rows a batch would insert instead of inserting them. */
  dryRun?: boolean;
  /** Runs after each batch's INSERT, before the staging table is emptied (the confirm/merge step). */
  afterInsert?: () => Promise<void>;
}

export interface StagingLimits {
  /** Rows per COPY into the staging table before they are moved on (at the end of the chunk)... */
  rowsPerBatch: number;
  /** ...or bytes, whichever comes first: a batch's text is held until its COPY has finished. */
  batchBytes: number;
  /**
   * COPY text the writer queues while PostgreSQL moves a batch: the reader and normaliser keep
   * working meanwhile instead of waiting, and memory stays bounded.
   */
  queuedBytes: number;
  /** The size of the reused pieces of memory the text is kept in (TextSlabs). */
  slabBytes: number;
}

const MiB = 1024 * 1024;
export const DEFAULT_LIMITS: StagingLimits = { rowsPerBatch: 25_000, batchBytes: 16 * MiB, queuedBytes: 8 * MiB, slabBytes: 1 * MiB };
const NEWLINE = 0x0a;

function countRows(chunk: Buffer): number {
  let rows = 0;
  for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) rows++;
  return rows;
}

type Callback = (error?: Error | null) => void;

/**
 * The end of the import pipeline: COPY text in (strings, or bytes); batches of rows COPYed into
 * the staging table and moved into `qso` by one INSERT each. While a batch is moved, further
 * rows queue here (up to `queuedBytes`), so JavaScript and PostgreSQL work at the same time.
 * The text is kept in reused slabs (TextSlabs): a slab is recycled once the COPYs its text
 * went into have finished, when PostgreSQL has read every byte of it.
 *
 * The queue is the writer's own rather than Writable's buffer: a Writable over its high-water
 * mark resumes its producer only once its buffer is empty ('drain'), so the parser would sit out
 * every other batch move with a part-full queue, then leave PostgreSQL waiting while it refilled
 * (measured: 4.5 s of 23 s on a million QSOs). Here the producer's callback is returned as soon
 * as there is room again.
 */
export class StagingWriter extends Writable {
  private copy: CopyStreamQuery | null = null;
  private rowsInBatch = 0;
  private bytesInBatch = 0;
  private readonly slabs: TextSlabs;
  private readonly queue: TextPiece[] = [];
  private queuedBytes = 0;
  /** Pieces written into the running COPY: released when it has finished. */
  private inCopy: TextPiece[] = [];
  /** The producer's callback, held while the queue is full. */
  private held: Callback | null = null;
  /** Whether the loop moving queued chunks into the database runs, and its end. */
  private draining = false;
  private drained: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  readonly stored: StoredRange = { stored: 0, firstId: null, lastId: null };

  constructor(
    private readonly client: pg.PoolClient,
    private readonly stationId: number,
    private readonly limits: StagingLimits = DEFAULT_LIMITS,
    private readonly options: StagingOptions = {},
  ) {
    // The queue below is the only buffer: Writable's own would hold rows outside its limit.
    // Strings are taken as they are and encoded straight into a slab.
    super({ highWaterMark: 1, decodeStrings: false });
    this.slabs = new TextSlabs(limits.slabBytes);
  }

  override _write(rows: string | Buffer, _encoding: BufferEncoding, callback: Callback): void {
    if (this.failure !== null) return callback(this.failure);
    this.queuedBytes += this.slabs.put(rows, this.queue);
    if (this.queuedBytes < this.limits.queuedBytes) callback();
    else this.held = callback;
    if (!this.draining) {
      this.draining = true;
      this.drained = this.drainQueue();
    }
  }

  override _final(callback: Callback): void {
    (async () => {
      await this.drained;
      if (this.failure !== null) throw this.failure;
      await this.storeBatch();
    })().then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: Callback): void {
    // An unfinished COPY is abandoned: pg-copy-streams tells the server it failed.
    this.copy?.destroy(error ?? undefined);
    this.release(error ?? new Error('the import was stopped'));
    callback(error);
  }

  /** Moves queued chunks into the database until the queue is empty; a failure ends the import. */
  private async drainQueue(): Promise<void> {
    try {
      for (let piece = this.queue.shift(); piece !== undefined; piece = this.queue.shift()) {
        this.queuedBytes -= piece.bytes.length;
        if (this.queuedBytes < this.limits.queuedBytes) this.release();
        await this.writeRows(piece);
      }
    } catch (error) {
      this.failure = error as Error;
      this.queue.length = 0;
      this.release(this.failure);
      this.destroy(this.failure);
    } finally {
      // In the same step as the loop's end: a chunk queued after it starts a new loop.
      this.draining = false;
    }
  }

  /** Hands the producer its callback back (with the failure, if there is one). */
  private release(error?: Error): void {
    const held = this.held;
    this.held = null;
    held?.(error);
  }

  private async writeRows(piece: TextPiece): Promise<void> {
    if (this.copy === null) {
      this.copy = this.client.query(copyFrom(`COPY import_staging (${STAGED_COLUMN_LIST}) FROM STDIN`));
      // A server error can arrive between writes: it ends the import.
      this.copy.on('error', (error) => this.destroy(error));
    }
    this.inCopy.push(piece);
    const { bytes } = piece;
    if (!this.copy.write(bytes)) await once(this.copy, 'drain');
    this.rowsInBatch += countRows(bytes);
    this.bytesInBatch += bytes.length;
    // Slabs cut text wherever a slab is full, inside a row too: a COPY may end only after a
    // whole row. Every chunk ends with one, so a batch runs past its limit by a chunk at most.
    const full = this.rowsInBatch >= this.limits.rowsPerBatch || this.bytesInBatch >= this.limits.batchBytes;
    if (full && bytes[bytes.length - 1] === NEWLINE) await this.storeBatch();
  }

  private async storeBatch(): Promise<void> {
    const copy = this.copy;
    if (copy === null) return;
    this.copy = null;
    this.rowsInBatch = 0;
    this.bytesInBatch = 0;
    copy.end();
    await finished(copy);
    for (const piece of this.inCopy) this.slabs.release(piece);
    this.inCopy = [];
    const batch = this.options.dryRun ? await countStagedRows(this.client) : await storeStagedRows(this.client, this.stationId);
    await this.options.afterInsert?.();
    await this.client.query('TRUNCATE import_staging');
    this.stored.stored += batch.stored;
    if (batch.firstId !== null) {
      this.stored.firstId = Math.min(this.stored.firstId ?? batch.firstId, batch.firstId);
      this.stored.lastId = Math.max(this.stored.lastId ?? batch.lastId!, batch.lastId!);
    }
  }
}
