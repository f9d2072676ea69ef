import type pg from 'pg';
import QueryStream from 'pg-query-stream';
import { SqlParams } from '../../db/sqlParams.js';
import { scopeConditions, type QsoScope } from '../../qso/scope.js';
import { MODE_CLASS_LISTS } from './names.js';

/** The session as the Cabrillo header needs it, with its station location's fields. */
export interface CabrilloSession {
  id: number;
  contest: string;
  exchangefields: string[];
  serialPerBand: boolean;
  serialPerOperator: boolean;
  callsign: string;
  gridsquare: string;
  timeStart: string;
  timeEnd: string | null;
}

/** A linked QSO with what the checks need, computed over the whole session in the statement. */
export interface SessionQso {
  id: number;
  call: string;
  date: string;
  hhmm: string;
  band: string;
  mode: string;
  freq: number | null;
  rst_sent: string | null;
  rst_rcvd: string | null;
  stx: number | null;
  srx: number | null;
  stx_string: string | null;
  srx_string: string | null;
  gridsquare: string | null;
  my_gridsquare: string | null;
  operator: string | null;
  radio_nr: string | null;
  outside: boolean;
  duplicate: boolean;
  prev_stx: number | null;
  same_stx: number;
}

type Queryable = Pick<pg.PoolClient, 'query'>;

/** The session of `userId` (any owner when null, the operator's command line), or null. */
export async function readCabrilloSession(db: Queryable, sessionId: number, userId: number | null): Promise<(CabrilloSession & { userId: number }) | null> {
  const { rows } = await db.query<{ id: number; user_id: number; contest: string; settings: Record<string, unknown>; callsign: string; gridsquare: string; time_start: string; time_end: string | null }>(
    `SELECT s.id, s.user_id, s.contest, s.settings, st.callsign, st.gridsquare,
            to_char(s.time_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS time_start,
            to_char(s.time_end AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS time_end
       FROM contest_sessions s JOIN stations st ON st.id = s.station_id
      WHERE s.id = $1 AND ($2::int IS NULL OR s.user_id = $2)`,
    [sessionId, userId],
  );
  const row = rows[0];
  if (!row) return null;
  const fields = row.settings.exchangefields;
  return {
    id: row.id,
    userId: row.user_id,
    contest: row.contest,
    exchangefields: Array.isArray(fields) ? fields.map(String) : ['serial'],
    serialPerBand: row.settings.serial_per_band === true,
    serialPerOperator: row.settings.serial_scope === 'operator',
    callsign: row.callsign,
    gridsquare: row.gridsquare,
    timeStart: row.time_start,
    timeEnd: row.time_end,
  };
}

/** SQL classing q.mode as names.ts's cabrilloMode does, its lists bound. */
function modeClassSql(params: SqlParams): string {
  const branches = Object.entries(MODE_CLASS_LISTS).map(([cabrillo, modes]) => `WHEN upper(q.mode) = ANY(${params.add(modes)}::text[]) THEN ${params.add(cabrillo)}`);
  return `CASE ${branches.join(' ')} ELSE 'DG' END`;
}

/**
 * The session's QSOs the scope shows, in time order, each with its checks' facts: outside the
 * session's time, a repeat of an earlier call on the band and Cabrillo mode, the serial sent
 * before it (in the serial's own sequence: per band and per operator as the session says) and
 * how many QSOs of that sequence sent the same serial. Streamed, so memory stays flat.
 */
export function sessionQsosQuery(session: CabrilloSession, scope: QsoScope): QueryStream {
  const params = new SqlParams();
  const serialSequence = [...(session.serialPerBand ? ['q.band'] : []), ...(session.serialPerOperator ? ['q.operator'] : [])];
  const partition = serialSequence.length ? `PARTITION BY ${serialSequence.join(', ')}` : '';
  const text = `
    SELECT q.id, q.call, to_char(q.time_on, 'YYYY-MM-DD') AS date, to_char(q.time_on, 'HH24MI') AS hhmm, q.band, q.mode,
           q.freq, q.rst_sent, q.rst_rcvd, q.stx, q.srx, q.stx_string, q.srx_string, q.gridsquare, q.my_gridsquare, q.operator,
           q.extra->>'app_n1mm_radio_nr' AS radio_nr,
           (q.time_on < s.time_start AT TIME ZONE 'UTC' OR q.time_on > s.time_end AT TIME ZONE 'UTC') IS TRUE AS outside,
           row_number() OVER (PARTITION BY upper(q.call), lower(q.band), ${modeClassSql(params)} ORDER BY q.time_on, q.id) > 1 AS duplicate,
           lag(q.stx) OVER (${partition} ORDER BY q.time_on, q.id) AS prev_stx,
           count(q.stx) OVER (${serialSequence.length ? `PARTITION BY ${serialSequence.join(', ')}, q.stx` : 'PARTITION BY q.stx'})::int AS same_stx
      FROM contest_session_qsos l
      JOIN contest_sessions s ON s.id = l.session_id
      JOIN qso q ON q.id = l.qso_id
     WHERE l.session_id = ${params.add(session.id)} AND ${scopeConditions(scope, params).join(' AND ')}
     ORDER BY q.time_on, q.id`;
  return new QueryStream(text, params.values, { batchSize: 500 });
}
