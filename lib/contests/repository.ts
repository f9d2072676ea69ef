import type pg from 'pg';
import { SqlParams } from '../db/sqlParams.js';
import { scopeConditions, type QsoScope } from '../qso/scope.js';
import { presentSettings, type ContestSettings, type StoredSettings } from './settings.js';
import { contestEntry, type SessionFields } from './session.js';

/** The contest session object of the v2 API. */
export interface ContestSession {
  id: number;
  contest: string;
  contest_name: string;
  time_start: string;
  time_end: string | null;
  station_id: number;
  comment: string;
  settings: ContestSettings;
  qso_count: number;
  created_at: string;
  updated_at: string;
}

interface SessionRow extends Omit<ContestSession, 'contest_name' | 'settings'> {
  settings: Partial<StoredSettings>;
}

type Queryable = Pick<pg.PoolClient, 'query'>;

const utc = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')`;

/**
 * Sessions of an owner, with the count of linked QSOs the request may see (club members below
 * officer level count only their own).
 */
function selectSessions(operator: string | null, params: SqlParams): string {
  const visibleLinks = operator === null
    ? 'SELECT count(*) FROM contest_session_qsos l WHERE l.session_id = s.id'
    : `SELECT count(*) FROM contest_session_qsos l JOIN qso q ON q.id = l.qso_id WHERE l.session_id = s.id AND q.operator = ${params.add(operator)}`;
  return `SELECT s.id, s.contest, ${utc('s.time_start')} AS time_start, ${utc('s.time_end')} AS time_end, s.station_id, s.comment,
                 s.settings, (${visibleLinks})::int AS qso_count, ${utc('s.created_at')} AS created_at, ${utc('s.updated_at')} AS updated_at
            FROM contest_sessions s`;
}

function present(row: SessionRow): ContestSession {
  return {
    id: row.id,
    contest: row.contest,
    contest_name: contestEntry(row.contest)?.name ?? '',
    time_start: row.time_start,
    time_end: row.time_end,
    station_id: row.station_id,
    comment: row.comment,
    settings: presentSettings(row.settings),
    qso_count: row.qso_count,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function listSessions(db: pg.Pool, userId: number, scope: QsoScope, sinceId: number): Promise<ContestSession[]> {
  const params = new SqlParams();
  const select = selectSessions(scope.operator, params);
  const { rows } = await db.query<SessionRow>(
    `${select} WHERE s.user_id = ${params.add(userId)} AND s.station_id = ANY(${params.add(scope.stationIds)}::int[])
        AND s.id > ${params.add(sinceId)} ORDER BY s.time_start DESC, s.id DESC`,
    params.values,
  );
  return rows.map(present);
}

export async function findSession(db: Queryable, userId: number, id: number, operator: string | null): Promise<ContestSession | null> {
  const params = new SqlParams();
  const select = selectSessions(operator, params);
  const { rows } = await db.query<SessionRow>(`${select} WHERE s.id = ${params.add(id)} AND s.user_id = ${params.add(userId)}`, params.values);
  return rows[0] ? present(rows[0]) : null;
}

/** Ids of the QSOs linked to a session that the scope shows, ascending. */
export async function sessionQsoIds(db: pg.Pool, sessionId: number, scope: QsoScope): Promise<number[]> {
  const params = new SqlParams();
  const { rows } = await db.query<{ id: number }>(
    `SELECT q.id FROM contest_session_qsos l JOIN qso q ON q.id = l.qso_id
      WHERE l.session_id = ${params.add(sessionId)} AND ${scopeConditions(scope, params).join(' AND ')} ORDER BY q.id`,
    params.values,
  );
  return rows.map((r) => r.id);
}

/** Of `ids`, those the scope cannot see (to refuse a link list before changing anything). */
export async function invisibleQsoIds(db: Queryable, scope: QsoScope, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const params = new SqlParams();
  const { rows } = await db.query<{ id: number }>(
    `SELECT q.id FROM qso q WHERE q.id = ANY(${params.add(ids)}::bigint[]) AND ${scopeConditions(scope, params).join(' AND ')}`,
    params.values,
  );
  const visible = new Set(rows.map((r) => r.id));
  return ids.filter((id) => !visible.has(id));
}

export async function insertSession(db: Queryable, userId: number, fields: SessionFields, settings: StoredSettings): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO contest_sessions (user_id, station_id, contest, time_start, time_end, comment, settings)
     VALUES ($1, $2, $3, $4::timestamp AT TIME ZONE 'UTC', $5::timestamp AT TIME ZONE 'UTC', $6, $7) RETURNING id`,
    [userId, fields.station_id, fields.contest, fields.time_start, fields.time_end, fields.comment, settings],
  );
  return rows[0]!.id;
}

/** The session row, locked for the rest of the transaction; null when it is not the owner's. */
export async function lockSession(db: Queryable, userId: number, id: number): Promise<Pick<SessionFields, 'contest' | 'time_start' | 'time_end'> | null> {
  const { rows } = await db.query<Pick<SessionFields, 'contest' | 'time_start' | 'time_end'>>(
    `SELECT contest, ${utc('time_start')} AS time_start, ${utc('time_end')} AS time_end
       FROM contest_sessions WHERE id = $1 AND user_id = $2 FOR UPDATE`,
    [id, userId],
  );
  return rows[0] ?? null;
}

/** Writes changed members and merges changed settings over the stored ones. */
export async function updateSession(db: Queryable, id: number, fields: Partial<SessionFields>, settings: Partial<StoredSettings>): Promise<void> {
  const params = new SqlParams();
  const assignments = (Object.keys(fields) as (keyof SessionFields)[]).map((field) => {
    const value = params.add(fields[field]);
    return field === 'time_start' || field === 'time_end' ? `${field} = ${value}::timestamp AT TIME ZONE 'UTC'` : `${field} = ${value}`;
  });
  if (Object.keys(settings).length) assignments.push(`settings = settings || ${params.add(settings)}::jsonb`);
  assignments.push('updated_at = now()');
  await db.query(`UPDATE contest_sessions SET ${assignments.join(', ')} WHERE id = ${params.add(id)}`, params.values);
  if (fields.contest !== undefined) {
    // Linked QSOs carry the session's contest in their CONTEST_ID.
    await db.query(
      'UPDATE qso SET contest_id = $1, updated_at = now() WHERE id IN (SELECT qso_id FROM contest_session_qsos WHERE session_id = $2)',
      [fields.contest, id],
    );
  }
}

/**
 * Links visible QSOs and sets their CONTEST_ID. A QSO already linked to another session is
 * skipped (and named); one already linked here is left as it is, so a client may resend its
 * whole list.
 */
export async function linkQsos(db: Queryable, sessionId: number, contest: string, ids: number[]): Promise<{ linked: number; skipped: number[] }> {
  if (!ids.length) return { linked: 0, skipped: [] };
  const { rows: inserted } = await db.query<{ qso_id: number }>(
    `INSERT INTO contest_session_qsos (session_id, qso_id) SELECT $1, unnest($2::bigint[])
     ON CONFLICT (qso_id) DO NOTHING RETURNING qso_id`,
    [sessionId, ids],
  );
  const linked = inserted.map((r) => r.qso_id);
  await db.query('UPDATE qso SET contest_id = $1, updated_at = now() WHERE id = ANY($2::bigint[])', [contest, linked]);
  const { rows: elsewhere } = await db.query<{ qso_id: number }>(
    'SELECT qso_id FROM contest_session_qsos WHERE qso_id = ANY($1::bigint[]) AND session_id <> $2 ORDER BY qso_id',
    [ids, sessionId],
  );
  return { linked: linked.length, skipped: elsewhere.map((r) => r.qso_id) };
}

/** Removes links of this session (others' links are untouched) and clears those QSOs' CONTEST_ID. */
export async function unlinkQsos(db: Queryable, sessionId: number, ids: number[]): Promise<number> {
  if (!ids.length) return 0;
  const { rows } = await db.query<{ qso_id: number }>(
    'DELETE FROM contest_session_qsos WHERE session_id = $1 AND qso_id = ANY($2::bigint[]) RETURNING qso_id',
    [sessionId, ids],
  );
  await db.query('UPDATE qso SET contest_id = NULL, updated_at = now() WHERE id = ANY($1::bigint[])', [rows.map((r) => r.qso_id)]);
  return rows.length;
}

/**
 * Deletes a session; with `deleteQsos` its linked QSOs go too (with their QSL images, OQRS
 * requests: the cascades), otherwise they stay in the log and keep their CONTEST_ID.
 */
export async function deleteSession(db: Queryable, userId: number, id: number, deleteQsos: boolean): Promise<boolean> {
  if (deleteQsos) {
    await db.query(
      `DELETE FROM qso WHERE id IN (SELECT l.qso_id FROM contest_session_qsos l JOIN contest_sessions s ON s.id = l.session_id
                                     WHERE s.id = $1 AND s.user_id = $2)
          AND station_id IN (SELECT id FROM stations WHERE user_id = $2)`,
      [id, userId],
    );
  }
  const { rowCount } = await db.query('DELETE FROM contest_sessions WHERE id = $1 AND user_id = $2', [id, userId]);
  return (rowCount ?? 0) > 0;
}
