import type { V1Call } from '../call.js';
import { failed } from '../call.js';
import { sendJson } from '../answer.js';
import { requireKey } from '../keyAuth.js';
import { idValue } from '../values.js';
import { asText } from '../../../input/jsonValues.js';
import { normalizeCallsign } from '../../../adif/callsign.js';
import { grantedStationIds, privateLookup } from '../../../lookup/callsignLookup.js';
import { OFFICER_LEVEL } from '../../v2/principal.js';

/** The requested `station_ids` when the body sends an array; a string or nothing asks for all. */
function requestedStationIds(value: unknown): number[] | null {
  if (!Array.isArray(value)) return null;
  return value.map(idValue).filter((id): id is number => id !== null);
}

function optionalText(value: unknown): string | null {
  const text = asText(value) ?? '';
  return text === '' ? null : text;
}

/**
 * `api/private_lookup`: what the key owner's log knows about a callsign (the lookup the v2
 * lookup resource answers with `detail=full`). `station_ids` narrows the locations; ids the owner
 * does not have are dropped, and when none is left all locations count. `callbook` is accepted
 * but no callbook is ever asked. The answer is pretty-printed, as the original's.
 */
export const privateLookupCall: V1Call = {
  name: 'private_lookup',
  async handle(request) {
    const { body, services } = request;
    const key = await requireKey(request, () => failed(401, 'missing api key or session'));
    // The owner's locations came with the key (by id): no round trip of their own.
    const stationIds = grantedStationIds(key.stations.map((station) => station.id), requestedStationIds(body.station_ids));
    if (stationIds.length === 0) throw failed(200, 'no station_profiles are matching the User with this API-Key');
    const callsign = normalizeCallsign(asText(body.callsign) ?? '');
    if (callsign === '') return sendJson(request.ctx, 200, { error: 'callsign to lookup not given' });
    // Club members below officer level see only what they logged themselves, as through v2.
    const operator = key.club && key.club.level < OFFICER_LEVEL ? key.club.callsign : null;
    const result = await privateLookup(services.db, {
      callsign,
      band: optionalText(body.band),
      mode: optionalText(body.mode),
      scope: { stationIds, operator },
    });
    sendJson(request.ctx, 200, result, true);
  },
};
