import type pg from 'pg';
import { named } from '../db/connectionSetup.js';
import { opaqueArray } from '../db/opaqueArray.js';
import { outsideQueryScope } from '../db/queryScope.js';
import { SQL_TYPE } from '../db/qsoColumns.js';
import { qsoWriterCte } from '../qso/writeLock.js';
import { QSO_COLUMNS, type QsoRow } from '../qso/present.js';
import { INSERT_COLUMNS } from './rowValues.js';
import { callCondition } from '../qso/filters.js';
import type { Metrics } from '../metrics.js';

/**
 * Small inserts (a single create, a logger's few QSOs) stored together: what concurrent callers
 * hand in while earlier statements run goes into the next statement as one batch. A statement
 * costs PostgreSQL about 1.4 ms of CPU whatever its size (a batch's plan of ~90 columns, the
 * writer declaration, the count triggers, the commit), a row about 0.1 ms more, so 32 loggers
 * posting at once cost the database a fraction of one statement each (benchmarks/RESULTS.md).
 * A lone caller waits for nothing: a batch leaves at once when no other statement of this
 * process is running; the callers arriving meanwhile make the next one.
 *
 * The unique index qso_dupe_key decides duplicates as before, within a batch in arrival order
 * (the first of twins is stored, the others name it). A row whose key an uncommitted transaction
 * has written (an import's) waits for that transaction; so that the others do not wait with
 * it, a batch waits for a lock at most LOCK_WAIT (lock_timeout), and a batch that fails gives
 * up its turn and runs again one caller at a time, without that limit: the caller whose rows
 * caused it (a wait, an error) is the only one to wait or fail. A batch runs outside every
 * request's QueryScope: one client going away must not terminate the statement that stores the
 * others' QSOs.
 */

/** One caller's rows: values in INSERT_COLUMNS order, their location and its owner. */
export interface InsertRequest {
  stationId: number;
  ownerId: number;
  rows: ReadonlyArray<ReadonlyArray<string | null>>;
  /** Whether the stored rows are wanted back (a v2 create answers with its QSO). */
  returnRows: boolean;
}

/** What became of one row: stored (with the row, when asked for), or the stored twin it duplicates. */
export type RowOutcome = { id: number; row: QsoRow | null } | { duplicateOf: number };

/**
 * Statements of a process in flight at once. One makes the largest batches: with 32 clients,
 * 920–1030 v1 creates/s at 1, 850–880 at 2, 680–780 at 4 (benchmarks/RESULTS.md).
 */
const MAX_IN_FLIGHT = 1;
/** How long a batch may wait for a lock before its callers go one by one (lock_timeout's text). */
const LOCK_WAIT = '50ms';
const NO_LOCK_WAIT = '0';
const LOCK_NOT_AVAILABLE = '55P03';
/** Rows per statement at most (a batch holds at least one caller, whatever its size). */
const MAX_BATCH_ROWS = 1000;

const DEADLOCK_DETECTED = '40P01';
/** A multi-row insert can deadlock with an import writing the same keys in another order; it is then simply repeated. */
const DEADLOCK_ATTEMPTS = 3;

const COLUMN_NAMES = INSERT_COLUMNS.map((column) => column.name);
/** Parameters: the locations, one per column, whether each row is wanted back (arrays, or one row's values), the owners, the lock wait. */
const PARAM_TYPES = ['integer', ...INSERT_COLUMNS.map((column) => SQL_TYPE[column.kind]), 'boolean'];
const INPUT_NAMES = ['station_id', ...COLUMN_NAMES, 'want_row'];
const ARRAYS_INPUT = `SELECT * FROM unnest(${PARAM_TYPES.map((type, i) => opaqueArray(`$${i + 1}`, type)).join(', ')})
    WITH ORDINALITY AS i(${INPUT_NAMES.join(', ')}, ord)`;
const ROW_INPUT = `SELECT ${PARAM_TYPES.map((type, i) => `$${i + 1}::${type} AS ${INPUT_NAMES[i]}`).join(', ')}, 1::bigint AS ord`;
const OWNERS = PARAM_TYPES.length + 1;
const LOCK_TIMEOUT = OWNERS + 1;

const SAME_KEY = (a: string, b: string) => `${a}.station_id = ${b}.station_id AND ${a}.call = ${b}.call
  AND date_trunc('minute', ${a}.time_on) = date_trunc('minute', ${b}.time_on) AND ${a}.band = ${b}.band AND ${a}.mode = ${b}.mode`;

/**
 * One statement, no transaction around it (qsoWriterCte), its lock_timeout set for itself alone
 * (local to its transaction, read before the INSERT forms a row). Rows go in in arrival order; each input
 * row is joined to the stored row of its duplicate key, which it stored itself when it is the
 * first of its key in the batch. The twin committed before the statement began is looked up
 * only for rows stored by nobody here (that lookup's snapshot cannot see this statement's rows).
 * Its text is the same whatever the rows, so it is a named statement that each connection parses
 * once and plans once; in two forms, one array per column (opaqueArray: planned for any number
 * of rows, where the plain arrays had it planned anew at every batch, 0.8 ms of the database's
 * CPU) and a single row's values, a lone create's.
 */
const insertSql = (input: string) => `
  ${qsoWriterCte(OWNERS)},
  lock_wait AS MATERIALIZED (SELECT set_config('lock_timeout', $${LOCK_TIMEOUT}::text, true)),
  input AS (${input}),
  stored AS (
    INSERT INTO qso AS q (station_id, ${COLUMN_NAMES.join(', ')})
    SELECT i.station_id, ${COLUMN_NAMES.map((name) => `i.${name}`).join(', ')} FROM qso_writer, lock_wait, input AS i ORDER BY i.ord
    ON CONFLICT DO NOTHING
    RETURNING ${QSO_COLUMNS.map((column) => `q.${column}`).join(', ')}
  )
  SELECT s.id AS stored_id,
    s.id IS NOT NULL AND i.ord = min(i.ord) OVER (PARTITION BY s.id) AS stored_here,
    CASE WHEN s.id IS NULL THEN (SELECT c.id FROM qso AS c WHERE ${SAME_KEY('c', 'i')} AND ${callCondition('i.call', 'c')} LIMIT 1) END AS committed_twin,
    ${QSO_COLUMNS.map((column) => `CASE WHEN i.want_row THEN s.${column} END AS ${column}`).join(', ')}
  FROM input AS i LEFT JOIN stored AS s ON ${SAME_KEY('s', 'i')}
  ORDER BY i.ord`;
const INSERT_ARRAYS = { name: 'small-insert', text: insertSql(ARRAYS_INPUT) };
const INSERT_ROW = { name: 'small-insert-one', text: insertSql(ROW_INPUT) };

/** For a row whose twin committed while the statement ran (its snapshot could not see it): the same key rule. */
const TWIN_SQL = `SELECT c.id FROM qso AS c,
    (SELECT $1::int AS station_id, $2::text AS call, $3::timestamp(0) AS time_on, $4::text AS band, $5::text AS mode) AS i
  WHERE ${SAME_KEY('c', 'i')} LIMIT 1`;
const KEY_COLUMNS = ['call', 'time_on', 'band', 'mode'].map((name) => COLUMN_NAMES.indexOf(name));

type ResultRow = QsoRow & { stored_id: number | null; stored_here: boolean; committed_twin: string | number | null };

interface Waiting {
  request: InsertRequest;
  resolve(outcomes: RowOutcome[]): void;
  reject(error: unknown): void;
}

export class InsertBatcher {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;

  constructor(private readonly db: pg.Pool, private readonly metrics: Metrics | null = null) {}

  /** Stores the rows; one outcome per row, in order. */
  insert(request: InsertRequest): Promise<RowOutcome[]> {
    if (request.rows.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.waiting.length > 0) {
      let count = 1;
      let rows = this.waiting[0]!.request.rows.length;
      while (count < this.waiting.length && rows + this.waiting[count]!.request.rows.length <= MAX_BATCH_ROWS) {
        rows += this.waiting[count]!.request.rows.length;
        count++;
      }
      const batch = this.waiting.splice(0, count);
      this.inFlight++;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.inFlight--;
        this.dispatch();
      };
      // Outside the scope of whichever request's continuation runs this (lib/db/queryScope.ts).
      void outsideQueryScope(() => this.run(batch, release)).finally(release);
    }
  }

  private async run(batch: Waiting[], release: () => void): Promise<void> {
    let result: ResultRow[];
    try {
      result = await this.execute(batch.map((waiting) => waiting.request), 'batch');
    } catch (error) {
      release();
      if (batch.length === 1 && (error as { code?: string }).code !== LOCK_NOT_AVAILABLE) {
        batch[0]!.reject(error);
        return;
      }
      // Nothing of the batch was stored: each caller alone, so that a wait or a failure reaches only its cause.
      await Promise.all(batch.map(({ request, resolve, reject }) =>
        this.execute([request], 'alone').then((rows) => this.outcomes(request, rows, 0)).then(resolve, reject)));
      return;
    }
    // The turn passes on before the callers resume, so that what they hand in next finds it free.
    release();
    // Stored: from here a failure (a twin's second look) is its caller's alone, never a reason to store again.
    let at = 0;
    await Promise.all(batch.map(({ request, resolve, reject }) => {
      const first = at;
      at += request.rows.length;
      return this.outcomes(request, result, first).then(resolve, reject);
    }));
  }

  /** One statement for these callers' rows. A batch waits for locks at most LOCK_WAIT; a caller alone as long as it takes. */
  private execute(requests: InsertRequest[], kind: 'batch' | 'alone'): Promise<ResultRow[]> {
    const stations: number[] = [];
    const columns: Array<Array<string | null>> = COLUMN_NAMES.map(() => []);
    const wanted: boolean[] = [];
    for (const request of requests) {
      for (const row of request.rows) {
        stations.push(request.stationId);
        columns.forEach((column, i) => column.push(row[i]!));
        wanted.push(request.returnRows);
      }
    }
    const owners = [...new Set(requests.map((request) => request.ownerId))].sort((a, b) => a - b);
    this.metrics?.smallInsertStatements.inc({ kind });
    this.metrics?.smallInsertRows.inc({ kind }, stations.length);
    const lockWait = kind === 'batch' ? LOCK_WAIT : NO_LOCK_WAIT;
    if (stations.length > 1) return this.query(INSERT_ARRAYS, [stations, ...columns, wanted, owners, lockWait]);
    return this.query(INSERT_ROW, [stations[0], ...columns.map((column) => column[0]), wanted[0], owners, lockWait]);
  }

  /** A caller's outcomes from its rows of the statement's result, which start at `first`. */
  private async outcomes(request: InsertRequest, result: ResultRow[], first: number): Promise<RowOutcome[]> {
    const mine: RowOutcome[] = [];
    for (const [i, values] of request.rows.entries()) {
      const { stored_id: storedId, stored_here: storedHere, committed_twin: committedTwin, ...row } = result[first + i]!;
      if (storedId !== null && storedHere) mine.push({ id: Number(storedId), row: request.returnRows ? row : null });
      else if (storedId !== null) mine.push({ duplicateOf: Number(storedId) });
      else if (committedTwin !== null) mine.push({ duplicateOf: Number(committedTwin) });
      else mine.push({ duplicateOf: await this.twinCommittedMeanwhile(request.stationId, values) });
    }
    return mine;
  }

  private async query(statement: { name: string; text: string }, params: unknown[]): Promise<ResultRow[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.db.query<ResultRow>({ ...named(this.db, statement), values: params })).rows;
      } catch (error) {
        if ((error as { code?: string }).code !== DEADLOCK_DETECTED || attempt === DEADLOCK_ATTEMPTS) throw error;
      }
    }
  }

  /** The twin of a row that was neither stored nor found: it committed while the INSERT waited on it. */
  private async twinCommittedMeanwhile(stationId: number, values: ReadonlyArray<string | null>): Promise<number> {
    const { rows } = await this.db.query<{ id: string | number }>(TWIN_SQL, [stationId, ...KEY_COLUMNS.map((i) => values[i])]);
    if (rows.length === 0) throw new Error('QSO was neither stored nor found as a duplicate');
    return Number(rows[0]!.id);
  }
}
