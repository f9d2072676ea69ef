import { validationError } from '../../../errors.js';
import { isBlank } from '../../../../input/jsonValues.js';
import { readInteger, readText } from '../../../bodyValues.js';
import { isValidCallsign, normalizeCallsign } from '../../../../adif/callsign.js';
import { normalizeGrid, normalizeGridList } from '../../../../adif/grid.js';
import { dxccEntity } from '../../../../dxcc/entities.js';
import { REQUIRED_STATION_FIELDS, STATION_FIELDS, type StationField, type StationFields } from '../../../../accounts/stationFields.js';

const TEXT_LIMIT = 255;

/** A locator (2–10 characters) or a comma list of 4/6-character grids (a location on a grid corner). */
function readGrid(value: unknown): string {
  const text = readText(value, 'gridsquare', TEXT_LIMIT);
  if (text === '') return '';
  const grid = text.includes(',') ? normalizeGridList(text) : normalizeGrid(text);
  if (grid === null) throw validationError('Invalid grid locator', { field: 'gridsquare' });
  return grid;
}

function readCallsign(value: unknown): string {
  const call = normalizeCallsign(readText(value, 'callsign', 32));
  if (!isValidCallsign(call)) throw validationError('Invalid callsign', { field: 'callsign' });
  return call;
}

function readDxcc(value: unknown): number | null {
  const code = readInteger(value, 'dxcc', { min: 0 });
  if (code !== null && dxccEntity(code) === undefined) throw validationError(`Unknown DXCC entity ${code}`, { field: 'dxcc' });
  return code;
}

const upperText = (field: StationField) => (value: unknown) => readText(value, field, TEXT_LIMIT).toUpperCase();

const READERS: { [F in StationField]: (value: unknown) => StationFields[F] } = {
  name: (value) => readText(value, 'name', TEXT_LIMIT),
  callsign: readCallsign,
  gridsquare: readGrid,
  city: (value) => readText(value, 'city', TEXT_LIMIT),
  dxcc: readDxcc,
  cq: (value) => readInteger(value, 'cq', { min: 1, max: 40 }),
  itu: (value) => readInteger(value, 'itu', { min: 1, max: 90 }),
  state: (value) => readText(value, 'state', TEXT_LIMIT),
  cnty: (value) => readText(value, 'cnty', TEXT_LIMIT),
  iota: upperText('iota'),
  sota: upperText('sota'),
  wwff: upperText('wwff'),
  // POTA references are written without spaces ("US-1234, US-5678" → "US-1234,US-5678").
  pota: (value) => upperText('pota')(value).replace(/\s+/g, ''),
  sig: upperText('sig'),
  sig_info: upperText('sig_info'),
  power: (value) => readInteger(value, 'power', { min: 0, max: 2_147_483_647 }),
};

const EMPTY_STATION: StationFields = {
  name: '', callsign: '', gridsquare: '', city: '', dxcc: null, cq: null, itu: null, state: '', cnty: '',
  iota: '', sota: '', wwff: '', pota: '', sig: '', sig_info: '', power: null,
};

/** The writable fields present in a body, validated and normalised. */
export function readStationChanges(body: Record<string, unknown>): Partial<StationFields> {
  const changes: Partial<Record<StationField, unknown>> = {};
  for (const field of STATION_FIELDS) {
    if (field in body) changes[field] = READERS[field](body[field]);
  }
  return changes as Partial<StationFields>;
}

/** A create body: every required field present (400 `details.missing` names all that are not), the rest defaulted. */
export function readNewStation(body: Record<string, unknown>): StationFields {
  const missing = REQUIRED_STATION_FIELDS.filter((field) => isBlank(body[field]));
  if (missing.length) throw validationError(`Missing required field(s): ${missing.join(', ')}`, { missing });
  return { ...EMPTY_STATION, ...readStationChanges(body) };
}

/** A PATCH may leave required fields out, but not blank them (400 `details.fields` names all that it does). */
export function rejectClearedRequired(body: Record<string, unknown>): void {
  const fields = REQUIRED_STATION_FIELDS.filter((field) => field in body && isBlank(body[field]));
  if (fields.length) throw validationError(`Field(s) cannot be cleared: ${fields.join(', ')}`, { fields });
}
