import type { V1Call } from '../call.js';
import { failed } from '../call.js';
import { sendJson } from '../answer.js';
import { ownsStations, requireKey } from '../keyAuth.js';
import { idValue, isNumeric } from '../values.js';
import { widgetTotals } from '../../../statistics/qsoStatistics.js';

/**
 * `api/get_wp_stats` (used by a WordPress widget): totals of one station location. Counts are
 * strings as the original's database driver returned them; "this year" is the current UTC year.
 * Always computed fresh from the counts writers keep (widgetTotals), so the original's 10-minute
 * cache (and its "Data from cache" message) is not reproduced.
 */
export const wpStatsCall: V1Call = {
  name: 'get_wp_stats',
  wrongJson: { status: 400, body: { status: 'failed', reason: 'wrong JSON' } },
  async handle(request) {
    const { db } = request.services;
    const key = await requireKey(request, () => failed(401, 'missing or wrong api key'));
    if (!isNumeric(request.body.station_id)) throw failed(400, 'Invalid station_id.');
    const stationId = idValue(request.body.station_id);
    if (stationId === null || !ownsStations(key, [stationId])) {
      throw failed(401, 'Station ID not accessible for this API key');
    }
    const { all, year, modes } = await widgetTotals(db, stationId);
    sendJson(request.ctx, 200, {
      status: 'successful',
      message: 'Export successful',
      statistics: { totalalltime: [{ count: all }], totalthisyear: [{ count: year }], totalgroupedmodes: modes },
    });
  },
};
