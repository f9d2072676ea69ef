import type pg from 'pg';
import type { V1Call } from '../call.js';
import { sendJson } from '../answer.js';
import { authorizeKey } from '../keyAuth.js';
import { activeStationIds } from '../../../accounts/stations.js';
import { qsoActivity, type QsoActivity } from '../../../statistics/qsoStatistics.js';

const NONE: QsoActivity = { today: 0, month: 0, year: 0, total: 0 };

/** QSO counts of the owner's active station location (the v2 statistic resource's aggregates). */
async function activeLocationCounts(db: pg.Pool, userId: number): Promise<QsoActivity> {
  const stationIds = await activeStationIds(db, userId);
  if (!stationIds.length) return NONE;
  return qsoActivity(db, { stationIds, operator: null });
}

/**
 * `api/statistics[/<key>]`: always 201; a missing or invalid key gets zeros rather than an
 * error, which the original kept for public widgets that call it without a key. Counts are
 * JSON integers in every answer, zeros included, as the original's row counts are.
 */
export const statisticsCall: V1Call = {
  name: 'statistics',
  keyInPath: true,
  async handle(request) {
    const key = await authorizeKey(request);
    const counts = key ? await activeLocationCounts(request.services.db, key.userId) : NONE;
    sendJson(request.ctx, 201, {
      Today: counts.today,
      total_qsos: counts.total,
      month_qsos: counts.month,
      year_qsos: counts.year,
    });
  },
};
