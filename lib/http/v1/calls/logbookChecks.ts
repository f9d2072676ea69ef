import type pg from 'pg';
import type { V1Call, V1Request } from '../call.js';
import { failed } from '../call.js';
import { sendEmpty, sendJson } from '../answer.js';
import { requireKey } from '../keyAuth.js';
import { isSet, textValue } from '../values.js';
import { SqlParams } from '../../../db/sqlParams.js';
import { normalizeCallsign } from '../../../adif/callsign.js';
import { CONFIRMATION_TYPES } from '../../../qso/confirmationTypes.js';

/**
 * `api/logbook_check_callsign` and `api/logbook_check_grid`: has a public logbook (addressed by
 * its slug) worked a callsign or grid? Any valid key may ask about any published logbook: the
 * slug is public by design (widgets ask on behalf of visitors), and only found/not found leaves.
 */

const WRONG_JSON = { status: 200, body: { status: 'failed', reason: 'wrong JSON' } };

/** The checked value, after the original's checks; null when it answers with an empty body. */
async function checkedValue(request: V1Request, field: 'callsign' | 'grid'): Promise<{ slug: string; value: string } | null> {
  await requireKey(request, failed(401, 'missing api key'));
  const { body } = request;
  if (!isSet(body, 'logbook_public_slug') || !isSet(body, field)) throw failed(401, 'missing fields');
  const slug = textValue(body.logbook_public_slug);
  const value = textValue(body[field]);
  if (slug === '' || value === '') return null;
  return { slug: slug ?? '', value: value ?? '' };
}

/** Station locations of the logbook published under `slug`; 404 answers when there is none or it is empty. */
async function logbookStations(db: pg.Pool, slug: string): Promise<number[]> {
  const { rows } = await db.query<{ station_ids: number[] }>(
    `SELECT array_remove(array_agg(ls.station_id), NULL) AS station_ids
       FROM logbooks l LEFT JOIN logbook_stations ls ON ls.logbook_id = l.id
      WHERE l.slug = $1 GROUP BY l.id`,
    [slug],
  );
  if (!rows[0]) throw failed(404, 'logbook not found');
  if (rows[0].station_ids.length === 0) throw failed(404, 'Empty Logbook');
  return rows[0].station_ids;
}

/** `band`: absent or `All` is no condition, `SAT` means a satellite name is logged, else the band itself. */
function bandCondition(band: unknown, params: SqlParams): string | null {
  const text = textValue(band)?.trim() ?? '';
  if (text === '' || text.toLowerCase() === 'all') return null;
  if (text.toUpperCase() === 'SAT') return "coalesce(q.sat_name, '') <> ''";
  return `q.band = ${params.add(text.toLowerCase())}`;
}

export const checkCallsignCall: V1Call = {
  name: 'logbook_check_callsign',
  wrongJson: WRONG_JSON,
  async handle(request) {
    const checked = await checkedValue(request, 'callsign');
    if (!checked) return sendEmpty(request.ctx);
    const stations = await logbookStations(request.services.db, checked.slug);
    const params = new SqlParams();
    const conditions = [`q.station_id = ANY(${params.add(stations)}::int[])`, `q.call = ${params.add(normalizeCallsign(checked.value))}`];
    const band = bandCondition(request.body.band, params);
    if (band) conditions.push(band);
    const { rowCount } = await request.services.db.query(`SELECT 1 FROM qso q WHERE ${conditions.join(' AND ')} LIMIT 1`, params.values);
    sendJson(request.ctx, 201, { callsign: request.body.callsign, result: rowCount ? 'Found' : 'Not Found' });
  },
};

type GridConfirmation = 'qsl' | 'lotw' | 'eqsl';
const GRID_CONFIRMATIONS: readonly string[] = ['qsl', 'lotw', 'eqsl'] satisfies GridConfirmation[];

export const checkGridCall: V1Call = {
  name: 'logbook_check_grid',
  wrongJson: WRONG_JSON,
  async handle(request) {
    const checked = await checkedValue(request, 'grid');
    if (!checked) return sendEmpty(request.ctx);
    const stations = await logbookStations(request.services.db, checked.slug);
    const params = new SqlParams();
    // The original compares the first four characters (the field) as a substring of either column.
    const grid = params.add(checked.value.slice(0, 4).toUpperCase());
    const conditions = [
      `q.station_id = ANY(${params.add(stations)}::int[])`,
      `(strpos(upper(coalesce(q.gridsquare, '')), ${grid}) > 0 OR strpos(upper(coalesce(q.vucc_grids, '')), ${grid}) > 0)`,
    ];
    const band = bandCondition(request.body.band, params);
    if (band) conditions.push(band);
    const cnfm = textValue(request.body.cnfm)?.toLowerCase() ?? '';
    // Another cnfm value confirms nothing, so a worked grid is reported as Worked.
    const confirmed = GRID_CONFIRMATIONS.includes(cnfm) ? `q.${CONFIRMATION_TYPES[cnfm as GridConfirmation].status} = 'Y'` : 'false';
    const { rows } = await request.services.db.query<{ worked: boolean; confirmed: boolean }>(
      `SELECT count(*) > 0 AS worked, coalesce(bool_or(${confirmed}), false) AS confirmed FROM qso q WHERE ${conditions.join(' AND ')}`,
      params.values,
    );
    const { worked, confirmed: isConfirmed } = rows[0]!;
    let result = 'Not Found';
    if (worked) result = cnfm === '' ? 'Found' : isConfirmed ? 'Confirmed' : 'Worked';
    sendJson(request.ctx, 201, { gridsquare: checked.value.toUpperCase(), result });
  },
};
