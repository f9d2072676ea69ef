import { once } from 'node:events';
import { Writable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
import { SQL_TYPE } from '../db/qsoColumns.js';
import type { RowChunk, RowKind } from './copyRows.js';
import { INSERT_COLUMNS, MATCH_COLUMNS } from './rowValues.js';
import { TextSlabs, type TextPiece } from './textSlabs.js';

/**
 * The database half of an import, inside the caller's transaction. The duplicate index has
 * already left out every stored duplicate and every twin within the document, so rows to insert
 * are COPYed straight into `qso`, each COPY inside a savepoint: only a concurrent writer (a single
 * create, which does not wait for the import lock) can have stored one of their keys meanwhile.
 * When one has (the unique index qso_dupe_key objects), the batch's COPY is rolled back to its
 * savepoint, its rows are COPYed into a private temporary table instead (no indexes, no WAL,
 * invisible to other sessions) and moved into `qso` with INSERT … ON CONFLICT DO NOTHING, which
 * drops the rows that lost the race. Rows to match (confirm and merge policies) always go through
 * that table, matched when their batch ends; a dry run stages its rows to insert and counts them.
 */

const COLUMN_LIST = INSERT_COLUMNS.map((column) => column.name).join(', ');
/** What a row to insert carries (copyRows.ts): the location, then the insert columns. */
const INSERT_ROW_COLUMNS = `station_id, ${COLUMN_LIST}`;
/** What a row to match carries: the insert columns, then the match columns (rowValues.ts). */
const MATCH_ROW_COLUMNS = [...INSERT_COLUMNS, ...MATCH_COLUMNS].map((column) => column.name).join(', ');

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
    'station_id integer',
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

/**
 * Moves the staged rows to insert (a batch that lost a race) into `qso` in the order they were
 * staged, the rows a concurrent writer stored first left out.
 */
async function storeStagedRows(client: pg.PoolClient, stationId: number): Promise<StoredRange> {
  const { rows } = await client.query<{ stored: number; first_id: string | number | null; last_id: string | number | null }>(
    `WITH stored AS (
       INSERT INTO qso (station_id, ${COLUMN_LIST})
       SELECT $1, ${COLUMN_LIST} FROM import_staging WHERE match_record IS NULL
       ON CONFLICT DO NOTHING
       RETURNING id
     )
     SELECT count(*)::int AS stored, min(id) AS first_id, max(id) AS last_id FROM stored`,
    [stationId],
  );
  const { stored, first_id: firstId, last_id: lastId } = rows[0]!;
  return { stored, firstId: firstId === null ? null : Number(firstId), lastId: lastId === null ? null : Number(lastId) };
}

/**
 * The ids a COPY into qso drew: the last one is the session's current value of the sequence;
 * the first, asked for the import's first such COPY only (later ones draw higher ids), is the
 * lowest id this transaction created in the location (rows it updated keep their created_at).
 */
const DIRECT_IDS_SQL = `SELECT currval('qso_id_seq') AS last_id,
    CASE WHEN $2::boolean THEN (SELECT min(id) FROM qso WHERE station_id = $1 AND txid = pg_current_xact_id() AND created_at = now()) END AS first_id`;

/** A dry run's batch: how many staged rows an INSERT would take (conflicts with concurrent writers aside). */
async function countStagedRows(client: pg.PoolClient): Promise<StoredRange> {
  const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM import_staging WHERE match_record IS NULL');
  return { stored: rows[0]!.n, firstId: null, lastId: null };
}

export interface StagingOptions {
  /** Stage the rows to insert and count them instead of inserting them. */
  dryRun?: boolean;
  /** Runs when a batch with rows to match ends, its rows to insert stored, before the staging table is emptied (the confirm/merge step). */
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

/** Where a COPY writes: rows to insert straight into qso, or rows of either kind into the staging table. */
type CopyInto = 'qso' | 'staged-insert' | 'staged-match';

const COPY_SQL: Readonly<Record<CopyInto, string>> = {
  qso: `COPY qso (${INSERT_ROW_COLUMNS}) FROM STDIN`,
  'staged-insert': `COPY import_staging (${INSERT_ROW_COLUMNS}) FROM STDIN`,
  'staged-match': `COPY import_staging (${MATCH_ROW_COLUMNS}) FROM STDIN`,
};

interface RunningCopy {
  readonly into: CopyInto;
  readonly stream: CopyStreamQuery;
  /** Resolves when PostgreSQL has taken every row, or has refused them (`failure`). */
  readonly done: Promise<void>;
  /** The server's error, set as it arrives: nothing more is written into the stream then. */
  failure: Error | null;
  /** The pieces written into it, released when it has finished (a COPY into qso that lost a race hands them on). */
  readonly pieces: TextPiece[];
}

interface QueuedPiece {
  readonly kind: RowKind;
  readonly piece: TextPiece;
}

/**
 * The end of the import pipeline: RowChunks in; rows to insert COPYed into `qso`, rows to match
 * into the staging table, a batch at a time (its rows to match matched when it ends). While
 * PostgreSQL takes a batch, further rows queue here (up to `queuedBytes`), so JavaScript and
 * PostgreSQL work at the same time. The text is kept in reused slabs (TextSlabs): a slab is
 * recycled once the COPYs its text went into have finished, when PostgreSQL has read every byte
 * of it; a COPY into qso keeps its text until then, for the staging table if it loses a race.
 * The queue is the writer's own: Writable's buffer resumes its producer only once empty, which
 * would idle the parser every other batch (benchmarks/RESULTS.md, "Import").
 */
export class StagingWriter extends Writable {
  private copy: RunningCopy | null = null;
  private rowsInBatch = 0;
  private bytesInBatch = 0;
  /** This batch lost a race with a concurrent writer: its rows to insert go through the staging table. */
  private raced = false;
  /** What this batch has put into the staging table. */
  private stagedInserts = false;
  private stagedMatches = false;
  private readonly slabs: TextSlabs;
  private readonly queue: QueuedPiece[] = [];
  private queuedBytes = 0;
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
    super({ highWaterMark: 1, objectMode: true });
    this.slabs = new TextSlabs(limits.slabBytes);
  }

  override _write(chunk: RowChunk, _encoding: BufferEncoding, callback: Callback): void {
    if (this.failure !== null) return callback(this.failure);
    const pieces: TextPiece[] = [];
    this.queuedBytes += this.slabs.put(chunk.text, pieces);
    for (const piece of pieces) this.queue.push({ kind: chunk.kind, piece });
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
    // An unfinished COPY is abandoned: pg-copy-streams tells the server it failed. One the server
    // has refused is over already (its stream must not be touched again).
    if (this.copy !== null && this.copy.failure === null) this.copy.stream.destroy(error ?? undefined);
    this.release(error ?? new Error('the import was stopped'));
    callback(error);
  }

  /** Moves queued chunks into the database until the queue is empty; a failure ends the import. */
  private async drainQueue(): Promise<void> {
    try {
      for (let queued = this.queue.shift(); queued !== undefined; queued = this.queue.shift()) {
        this.queuedBytes -= queued.piece.bytes.length;
        if (this.queuedBytes < this.limits.queuedBytes) this.release();
        await this.writeRows(queued);
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

  /** Where this batch's rows of a kind go. */
  private target(kind: RowKind): CopyInto {
    if (kind === 'match') return 'staged-match';
    return this.options.dryRun || this.raced ? 'staged-insert' : 'qso';
  }

  private async writeRows({ kind, piece }: QueuedPiece): Promise<void> {
    // A connection runs one COPY at a time: another kind of row ends the running one, and so does
    // a refusal (a lost race sends the batch's rows to insert to the staging table).
    while (this.copy !== null && (this.copy.into !== this.target(kind) || this.copy.failure !== null)) await this.endCopy();
    this.copy ??= await this.startCopy(this.target(kind));
    await this.send(this.copy, piece);
    const { bytes } = piece;
    this.rowsInBatch += countRows(bytes);
    this.bytesInBatch += bytes.length;
    // Slabs cut text wherever a slab is full, inside a row too: a COPY may end only after a
    // whole row. Every chunk ends with one, so a batch runs past its limit by a chunk at most.
    const full = this.rowsInBatch >= this.limits.rowsPerBatch || this.bytesInBatch >= this.limits.batchBytes;
    if (full && bytes[bytes.length - 1] === NEWLINE) await this.storeBatch();
  }

  private async startCopy(into: CopyInto): Promise<RunningCopy> {
    if (into === 'qso') await this.client.query('SAVEPOINT import_copy');
    else if (into === 'staged-insert') this.stagedInserts = true;
    else this.stagedMatches = true;
    const stream = this.client.query(copyFrom(COPY_SQL[into]));
    let settle: () => void = () => undefined;
    const copy: RunningCopy = { into, stream, failure: null, pieces: [], done: new Promise<void>((resolve) => (settle = resolve)) };
    stream.on('finish', settle);
    stream.on('error', (error) => {
      copy.failure = error;
      settle();
      // A duplicate key in qso is a race lost to a concurrent writer, settled when the COPY ends;
      // any other error, arriving between writes too, ends the import.
      if (into !== 'qso' || (error as { code?: string }).code !== UNIQUE_VIOLATION) this.destroy(error);
    });
    return copy;
  }

  private async send(copy: RunningCopy, piece: TextPiece): Promise<void> {
    copy.pieces.push(piece);
    if (copy.failure !== null) return;
    if (copy.stream.write(piece.bytes)) return;
    try {
      await once(copy.stream, 'drain');
    } catch (error) {
      if (copy.failure === null || copy.into !== 'qso') throw error;
    }
  }

  /** Ends the running COPY: its rows are in (or, lost to a race, staged instead), its text released. */
  private async endCopy(): Promise<void> {
    const copy = this.copy!;
    this.copy = null;
    if (copy.failure === null) copy.stream.end();
    await copy.done;
    if (copy.into === 'qso' && copy.failure !== null) return this.restage(copy);
    if (copy.failure !== null) throw copy.failure;
    for (const piece of copy.pieces) this.slabs.release(piece);
    if (copy.into === 'qso') await this.settleDirect(copy.stream.rowCount);
  }

  /** A COPY into qso has stored its rows: counts them and notes their ids. */
  private async settleDirect(rows: number): Promise<void> {
    await this.client.query('RELEASE SAVEPOINT import_copy');
    if (rows === 0) return;
    const first = this.stored.firstId === null;
    const { rows: ids } = await this.client.query<{ first_id: string | null; last_id: string }>(DIRECT_IDS_SQL, [this.stationId, first]);
    this.stored.stored += rows;
    if (first) this.stored.firstId = Number(ids[0]!.first_id);
    this.stored.lastId = Math.max(this.stored.lastId ?? 0, Number(ids[0]!.last_id));
  }

  /** A COPY into qso that lost a race: undone, its rows COPYed into the staging table, where the rest of its batch follows. */
  private async restage(lost: RunningCopy): Promise<void> {
    if ((lost.failure as { code?: string }).code !== UNIQUE_VIOLATION) throw lost.failure;
    await this.client.query('ROLLBACK TO SAVEPOINT import_copy; RELEASE SAVEPOINT import_copy');
    this.raced = true;
    this.copy = await this.startCopy('staged-insert');
    for (const piece of lost.pieces) await this.send(this.copy, piece);
  }

  private async storeBatch(): Promise<void> {
    while (this.copy !== null) await this.endCopy();
    this.rowsInBatch = 0;
    this.bytesInBatch = 0;
    if (this.stagedInserts) {
      const batch = this.options.dryRun ? await countStagedRows(this.client) : await storeStagedRows(this.client, this.stationId);
      this.stored.stored += batch.stored;
      if (batch.firstId !== null) {
        this.stored.firstId = Math.min(this.stored.firstId ?? batch.firstId, batch.firstId);
        this.stored.lastId = Math.max(this.stored.lastId ?? batch.lastId!, batch.lastId!);
      }
    }
    if (this.stagedMatches) await this.options.afterInsert?.();
    if (this.stagedInserts || this.stagedMatches) await this.client.query('TRUNCATE import_staging');
    this.stagedInserts = false;
    this.stagedMatches = false;
    this.raced = false;
  }
}
