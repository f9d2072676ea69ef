import type { V1Call, V1Request } from '../call.js';
import { V1Failure } from '../call.js';
import { sendJson } from '../answer.js';
import { requireWriteKey } from '../keyAuth.js';
import { phpInt, phpTruthy } from '../values.js';
import { asText } from '../../../input/jsonValues.js';
import { importStations, type StationImport } from '../../../accounts/stations.js';
import { dxccEntity } from '../../../dxcc/entities.js';
import { OFFICER_LEVEL } from '../../v2/principal.js';

/** The original stops after this many locations per request. */
const MAX_LOCATIONS = 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Profile-form fields without a column of their own: kept in stations.settings (nothing uploads anywhere). */
const SETTINGS_FIELDS = [
  'hrdlog_username', 'dxccname', 'dxccprefix', 'eqslqthnickname', 'county', 'qrzrealtime', 'oqrs', 'oqrs_text', 'oqrs_email',
  'webadifrealtime', 'clublogrealtime', 'clublogignore', 'hrdlogrealtime', 'eqsl_default_qslmsg',
] as const;

function error(status: number, message: string): V1Failure {
  return new V1Failure({ status, body: { status: 'error', message } });
}

function text(location: Record<string, unknown>, field: string): string {
  return asText(location[field]) ?? '';
}

function integer(location: Record<string, unknown>, field: string): number | null {
  const value = phpInt(location[field]);
  return value !== null && Math.abs(value) <= 2147483647 ? value : null;
}

/** One body object as a station location; null without the two fields the original requires. */
function locationFrom(input: Record<string, unknown>, userId: number): StationImport | null {
  const name = text(input, 'station_profile_name');
  const callsign = text(input, 'station_callsign');
  if (name === '' || callsign === '') return null;
  const dxcc = integer(input, 'station_dxcc');
  const uuid = text(input, 'station_uuid');
  const settings: Record<string, unknown> = {};
  for (const field of SETTINGS_FIELDS) {
    const value = input[field];
    if (value !== undefined && value !== null && typeof value !== 'object') settings[field] = value;
  }
  return {
    station: {
      userId,
      name,
      callsign,
      gridsquare: text(input, 'station_gridsquare'),
      city: text(input, 'station_city'),
      dxcc,
      // The entity's name, as for v2 locations; the client's own `dxccname` is kept in settings.
      country: (dxcc !== null ? dxccEntity(dxcc)?.countryName : undefined) ?? '',
      cq: integer(input, 'station_cq'),
      itu: integer(input, 'station_itu'),
      state: text(input, 'state'),
      cnty: text(input, 'station_cnty'),
      iota: text(input, 'station_iota'),
      sota: text(input, 'station_sota'),
      wwff: text(input, 'station_wwff'),
      pota: text(input, 'station_pota'),
      sig: text(input, 'station_sig'),
      sig_info: text(input, 'station_sig_info'),
      power: integer(input, 'station_power'),
      // A malformed uuid cannot be stored; the location gets a fresh one.
      uuid: UUID.test(uuid) ? uuid.toLowerCase() : undefined,
      active: phpTruthy(input.station_active),
      settings,
    },
    linkActiveLogbook: phpTruthy(input.link_active_logbook),
  };
}

/** The body's location objects: an array of them, or (as the original also accepts) a single one. */
function bodyLocations(request: V1Request): Record<string, unknown>[] {
  if (request.bodyProblem === 'empty') throw error(400, 'No file uploaded');
  if (request.bodyProblem === 'invalid') throw error(400, 'Invalid JSON file');
  const { json } = request;
  if ('station_callsign' in request.body || 'station_profile_name' in request.body) return [request.body];
  if (!Array.isArray(json)) throw error(400, 'Invalid JSON file');
  return json.filter((item): item is Record<string, unknown> => item !== null && typeof item === 'object' && !Array.isArray(item));
}

/**
 * `api/create_station/<key>`: creates station locations for the key owner. Club keys need an
 * officer (members may not change the club's locations).
 */
export const createStationCall: V1Call = {
  name: 'create_station',
  keyInPath: true,
  async handle(request) {
    const key = await requireWriteKey(request, () => error(401, 'Auth Error, invalid key'), () => error(403, 'API key does not have write permissions'));
    if (key.club && key.club.level < OFFICER_LEVEL) throw error(401, 'Auth Error, not enough grants for this operation');
    const inputs = bodyLocations(request);
    const locations = inputs
      .slice(0, MAX_LOCATIONS)
      .map((input) => locationFrom(input, key.userId))
      .filter((location): location is StationImport => location !== null);
    let created: number;
    try {
      created = await importStations(request.services.db, key.userId, locations);
    } catch (err) {
      request.services.logger.error('create_station failed', { key_id: key.id, error: (err as Error).message });
      throw error(500, 'Processing error: the locations could not be stored');
    }
    let message = `${created} locations imported.`;
    if (inputs.length > MAX_LOCATIONS) message += ` Maximum limit of ${MAX_LOCATIONS} locations reached.`;
    if (created === 0) return sendJson(request.ctx, 200, { status: 'dupe', message });
    sendJson(request.ctx, 201, { status: 'success', message });
  },
};
