import type pg from 'pg';
import type { V1Call, V1Request } from '../call.js';
import { failed } from '../call.js';
import { sendEmpty, sendJson } from '../answer.js';
import { requireKey } from '../keyAuth.js';
import { isSet } from '../values.js';
import { asText } from '../../../input/jsonValues.js';
import { normalizeCallsign } from '../../../adif/callsign.js';
import { normalizeGrid } from '../../../adif/grid.js';
import type { QsoScope } from '../../../qso/scope.js';
import { stationIdsBySlug } from '../../../accounts/logbooks.js';
import { callsignWorked } from '../../../lookup/callsignLookup.js';
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
  const stationIds = await stationIdsBySlug(db, slug);
  if (stationIds === null) throw failed(404, 'logbook not found');
  return { stationIds, operator: null };
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
    const found = await callsignWorked(request.services.db, scope, normalizeCallsign(checked.value), bandOf(request.body.band));
    sendJson(request.ctx, 201, { callsign: request.body.callsign, result: found ? 'Found' : 'Not Found' });
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
