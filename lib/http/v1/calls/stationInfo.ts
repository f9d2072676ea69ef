import type { V1Call } from '../call.js';
import { failed } from '../call.js';
import { sendJson } from '../answer.js';
import { requireKey } from '../keyAuth.js';
import { dxccEntity } from '../../../dxcc/entities.js';
import { stationInfoRows } from '../../../accounts/stations.js';

/** `api/station_info[/<key>]`: the key owner's station locations, oldest first. */
export const stationInfoCall: V1Call = {
  name: 'station_info',
  keyInPath: true,
  async handle(request) {
    const key = await requireKey(request, () => failed(401, 'missing or invalid api key'));
    const rows = await stationInfoRows(request.services.db, key.userId);
    for (const row of rows) {
      // Locations created without a country name still carry their entity.
      if (row.station_country === '' && row.station_dxcc !== null) row.station_country = dxccEntity(Number(row.station_dxcc))?.countryName ?? '';
    }
    sendJson(request.ctx, 200, rows);
  },
};
