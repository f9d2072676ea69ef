import type pg from 'pg';
import type { V1Call, V1Request } from '../call.js';
import { failed } from '../call.js';
import { sendEmpty, sendJson } from '../answer.js';
import { requireKey } from '../keyAuth.js';
import { isSet } from '../values.js';
import { asText } from '../../../input/jsonValues.js';
import { SqlParams } from '../../../db/sqlParams.js';
import { named } from '../../../db/connectionSetup.js';
import { normalizeCallsign } from '../../../adif/callsign.js';
import { normalizeGrid } from '../../../adif/grid.js';
import { bandCondition } from '../../../qso/filters.js';
import { scopeConditions, type QsoScope } from '../../../qso/scope.js';
import { GRID_CONFIRMATIONS, gridStatus, type GridConfirmation, type GridResult } from '../../../lookup/gridLookup.js';

/**
 * `api/logbook_check_callsign` and `api/logbook_check_grid`: has a public logbook (addressed by
 * its slug) worked a callsign or grid? Any valid key may ask about any published logbook: the
 * slug is public by design (widgets ask on behalf of visitors), and only found/not found leaves.
 */

const WRONG_JSON = { status: 200, body: { status: 'failed', reason: 'wrong JSON' } };

/** The checked value, after the original's checks; null when it answers with an empty body. */
async function checkedValue(request: V1Request, field: 'callsign' | 'grid'): Promise<{ slug: string; value: string } | null> {
  await requireKey(request, () => failed(401, 'missing api key'));
  const { body } = request;
  if (!isSet(body, 'logbook_public_slug') || !isSet(body, field)) throw failed(401, 'missing fields');
  // Arrays and objects are no slug and no value: they find nothing.
  const slug = asText(body.logbook_public_slug);
  const value = asText(body[field]);
  if (slug === '' || value === '') return null;
  return { slug: slug ?? '', value: value ?? '' };
}

/**
 * The QSOs of the logbook published under `slug`; 404 when there is none. A logbook without
 * locations has no QSOs, so its checks answer "Not Found", as the original does.
 */
async function logbookScope(db: pg.Pool, slug: string): Promise<QsoScope> {
  const { rows } = await db.query<{ station_ids: number[] }>({
    ...named(db, {
      name: 'logbook-stations-by-slug',
      text: `SELECT array_remove(array_agg(ls.station_id), NULL) AS station_ids
               FROM logbooks l LEFT JOIN logbook_stations ls ON ls.logbook_id = l.id
              WHERE l.slug = $1 GROUP BY l.id`,
    }),
    values: [slug],
  });
  if (!rows[0]) throw failed(404, 'logbook not found');
  return { stationIds: rows[0].station_ids, operator: null };
}

/** `band`: absent or `All` is every band; otherwise a band or `SAT`, as every QSO filter reads it. */
function bandOf(band: unknown): string | null {
  const text = asText(band) ?? '';
  return text === '' || text.toLowerCase() === 'all' ? null : text;
}

export const checkCallsignCall: V1Call = {
  name: 'logbook_check_callsign',
  wrongJson: WRONG_JSON,
  async handle(request) {
    const checked = await checkedValue(request, 'callsign');
    if (!checked) return sendEmpty(request.ctx);
    const scope = await logbookScope(request.services.db, checked.slug);
    const params = new SqlParams();
    const conditions = [...scopeConditions(scope, params), `q.call = ${params.add(normalizeCallsign(checked.value))}`];
    const band = bandOf(request.body.band);
    const bandFilter = band === null ? null : bandCondition(band, params);
    if (bandFilter) conditions.push(bandFilter);
    const { rowCount } = await request.services.db.query(`SELECT 1 FROM qso q WHERE ${conditions.join(' AND ')} LIMIT 1`, params.values);
    sendJson(request.ctx, 201, { callsign: request.body.callsign, result: rowCount ? 'Found' : 'Not Found' });
  },
};

export const checkGridCall: V1Call = {
  name: 'logbook_check_grid',
  wrongJson: WRONG_JSON,
  async handle(request) {
    const checked = await checkedValue(request, 'grid');
    if (!checked) return sendEmpty(request.ctx);
    const scope = await logbookScope(request.services.db, checked.slug);
    // The original compares the square (first four characters); anything else is no locator.
    const square = normalizeGrid(checked.value.slice(0, 4));
    const cnfm = asText(request.body.cnfm)?.toLowerCase() ?? '';
    const known = (GRID_CONFIRMATIONS as readonly string[]).includes(cnfm) ? (cnfm as GridConfirmation) : null;
    let result: GridResult = 'Not Found';
    if (square !== null) {
      result = await gridStatus(request.services.db, scope, square, { band: bandOf(request.body.band), cnfm: known });
      // Another cnfm value confirms nothing: a worked square is reported as Worked.
      if (result === 'Found' && cnfm !== '') result = 'Worked';
    }
    sendJson(request.ctx, 201, { gridsquare: checked.value.toUpperCase(), result });
  },
};
