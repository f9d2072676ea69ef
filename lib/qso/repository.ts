import type pg from 'pg';
import { SqlParams } from '../db/sqlParams.js';
import { scopeConditions, type QsoScope } from './scope.js';
import { qsoSelectList, type QsoRow } from './present.js';
import { shapedStatement } from '../db/shapedStatement.js';
import { named } from '../db/connectionSetup.js';
import { callCondition } from './filters.js';

/**
 * One QSO at a time, always inside a visibility scope: a QSO outside it is simply not found,
 * so callers answer 404 without learning whether it exists.
 */

type Queryable = Pick<pg.Pool, 'query'>;

function visible(scope: QsoScope, id: number, params: SqlParams): string {
  return [`q.id = ${params.add(id)}`, ...scopeConditions(scope, params)].join(' AND ');
}

/**
 * A named statement, in two texts (with and without the operator condition): the cheapest
 * request there is spent more of the database's CPU planning it than running it (0.16 ms
 * against 0.01); named, each connection parses and plans each text once.
 */
export async function findVisibleQso(db: Queryable, scope: QsoScope, id: number): Promise<QsoRow | null> {
  const params = new SqlParams();
  const text = `SELECT ${qsoSelectList()} FROM qso q WHERE ${visible(scope, id, params)}`;
  const name = scope.operator === null ? 'qso-by-id' : 'qso-by-id-of-operator';
  const { rows } = await db.query<QsoRow>({ ...named(db, { name, text }), values: params.values });
  return rows[0] ?? null;
}

/**
 * Column → new value; the keys are column names from the caller's fixed list of editable
 * columns, never request text.
 */
export type QsoChanges = Readonly<Record<string, string | number | null>>;

/** The columns of the duplicate rule (the unique index qso_dupe_key). */
export interface DupeKey {
  station_id: number;
  call: string;
  time_on: string;
  band: string;
  mode: string;
}

export class DuplicateQsoError extends Error {
  constructor(readonly existingId: number) {
    super(`QSO duplicates QSO ${existingId}`);
    this.name = 'DuplicateQsoError';
  }
}

const UNIQUE_VIOLATION = '23505';

/** The id of another QSO with the same duplicate key, if any. */
async function duplicateOf(db: Queryable, key: DupeKey, exceptId: number): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>(
    `SELECT id FROM qso
      WHERE station_id = $1 AND ${callCondition('$2', '')} AND date_trunc('minute', time_on) = date_trunc('minute', $3::timestamp)
        AND band = $4 AND mode = $5 AND id <> $6
      LIMIT 1`,
    [key.station_id, key.call, key.time_on, key.band, key.mode, exceptId],
  );
  return rows[0]?.id ?? null;
}

/**
 * Applies `changes` to a visible QSO, inside a transaction that has called beginQsoWrite, and returns the fresh row, or null when it is not (or no
 * longer) visible. `after` is the QSO's duplicate key once changed: a clash with another QSO
 * throws DuplicateQsoError naming it.
 */
export async function updateVisibleQso(db: Queryable, scope: QsoScope, id: number, changes: QsoChanges, after: DupeKey): Promise<QsoRow | null> {
  const params = new SqlParams();
  const assignments = Object.entries(changes).map(([column, value]) => `${column} = ${params.add(value)}`);
  const sql = `UPDATE qso q SET ${assignments.join(', ')}, updated_at = now()
                WHERE ${visible(scope, id, params)} RETURNING ${qsoSelectList()}`;
  // Inside the caller's transaction: a clash rolls back to here, so the twin can still be looked up.
  await db.query('SAVEPOINT qso_update');
  try {
    // Named by its shape (the columns it sets): a logger's edits repeat a few shapes, each parsed once per connection.
    const { rows } = await db.query<QsoRow>(shapedStatement(db, sql, params.values));
    await db.query('RELEASE SAVEPOINT qso_update');
    return rows[0] ?? null;
  } catch (error) {
    if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    await db.query('ROLLBACK TO SAVEPOINT qso_update');
    const existing = await duplicateOf(db, after, id);
    if (existing === null) throw error;
    throw new DuplicateQsoError(existing);
  }
}

/**
 * Deletes a visible QSO in one statement; QSL images, OQRS requests and contest links go with
 * it through their foreign keys (ON DELETE CASCADE). Returns the station it was logged on, or
 * null when it is not visible.
 */
export async function deleteVisibleQso(db: Queryable, scope: QsoScope, id: number): Promise<{ stationId: number } | null> {
  const params = new SqlParams();
  const { rows } = await db.query<{ station_id: number }>(shapedStatement(db, `DELETE FROM qso q WHERE ${visible(scope, id, params)} RETURNING q.station_id`, params.values));
  return rows[0] ? { stationId: rows[0].station_id } : null;
}
