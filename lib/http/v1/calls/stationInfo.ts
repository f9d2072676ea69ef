import type { V1Call } from '../call.js';
import { failed } from '../call.js';
import { sendJson } from '../answer.js';
import { requireKey } from '../keyAuth.js';
import { dxccEntity } from '../../../dxcc/entities.js';

/** One station info record: every value a string (or null), as the original's database driver returned them. */
interface StationInfoRow {
  station_id: string;
  station_profile_name: string;
  station_gridsquare: string;
  station_callsign: string;
  station_active: '1' | null;
  station_uuid: string;
  station_city: string;
  station_iota: string;
  station_sota: string;
  station_wwff: string;
  station_pota: string;
  station_sig: string;
  station_sig_info: string;
  station_dxcc: string | null;
  station_cnty: string;
  station_cq: string | null;
  station_itu: string | null;
  station_state: string;
  station_country: string;
}

/** `api/station_info[/<key>]`: the key owner's station locations, oldest first. */
export const stationInfoCall: V1Call = {
  name: 'station_info',
  keyInPath: true,
  async handle(request) {
    const key = await requireKey(request, () => failed(401, 'missing or invalid api key'));
    const { rows } = await request.services.db.query<StationInfoRow>(
      `SELECT id::text AS station_id, name AS station_profile_name, gridsquare AS station_gridsquare,
              callsign AS station_callsign, CASE WHEN active THEN '1' END AS station_active,
              uuid::text AS station_uuid, city AS station_city, iota AS station_iota, sota AS station_sota,
              wwff AS station_wwff, pota AS station_pota, sig AS station_sig, sig_info AS station_sig_info,
              dxcc::text AS station_dxcc, cnty AS station_cnty, cq::text AS station_cq, itu::text AS station_itu,
              state AS station_state, country AS station_country
         FROM stations WHERE user_id = $1 ORDER BY id`,
      [key.userId],
    );
    for (const row of rows) {
      // Locations created without a country name still carry their entity.
      if (row.station_country === '' && row.station_dxcc !== null) row.station_country = dxccEntity(Number(row.station_dxcc))?.countryName ?? '';
    }
    sendJson(request.ctx, 200, rows);
  },
};
