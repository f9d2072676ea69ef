import type pg from 'pg';
import type { V1Call } from '../call.js';
import { sendJson } from '../answer.js';
import { authorizeKey } from '../keyAuth.js';

interface Counts {
  today: number;
  month: number;
  year: number;
  total: number;
}

const NONE: Counts = { today: 0, month: 0, year: 0, total: 0 };

/** QSO counts of the owner's active station location; days, months and years in UTC, like time_on. */
async function activeLocationCounts(db: pg.Pool, userId: number): Promise<Counts> {
  const { rows } = await db.query<Counts>(
    `WITH now_utc AS (SELECT (now() AT TIME ZONE 'UTC') AS t)
     SELECT count(*) FILTER (WHERE q.time_on >= date_trunc('day', t) AND q.time_on < date_trunc('day', t) + interval '1 day')::int AS today,
            count(*) FILTER (WHERE q.time_on >= date_trunc('month', t) AND q.time_on < date_trunc('month', t) + interval '1 month')::int AS month,
            count(*) FILTER (WHERE q.time_on >= date_trunc('year', t) AND q.time_on < date_trunc('year', t) + interval '1 year')::int AS year,
            count(*)::int AS total
       FROM now_utc, qso q JOIN stations s ON s.id = q.station_id
      WHERE s.user_id = $1 AND s.active`,
    [userId],
  );
  return rows[0] ?? NONE;
}

/**
 * `api/statistics[/<key>]`: always 201; a missing or invalid key gets zeros rather than an
 * error, which the original kept for public widgets that call it without a key.
 */
export const statisticsCall: V1Call = {
  name: 'statistics',
  keyInPath: true,
  async handle(request) {
    const key = await authorizeKey(request);
    const counts = key ? await activeLocationCounts(request.services.db, key.userId) : NONE;
    sendJson(request.ctx, 201, { Today: counts.today, total_qsos: counts.total, month_qsos: counts.month, year_qsos: counts.year });
  },
};
