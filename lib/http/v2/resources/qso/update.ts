import { conflict, notFound, validationError } from '../../../errors.js';
import type { Scalar } from '../../../body.js';
import type { Handler, RequestContext } from '../../resource.js';
import { combineDateTime, parseAdifDate, parseAdifTime, timeOffFor } from '../../../../adif/datetime.js';
import { splitMode } from '../../../../adif/modes.js';
import { inQsoTransaction } from '../../../../qso/writeLock.js';
import { DuplicateQsoError, findVisibleQso, updateVisibleQso } from '../../../../qso/repository.js';
import { presentQso, type QsoRow } from '../../../../qso/present.js';
import { frequencyValue, isPlainField, isSpecialField, plainValue, rejectField, textValue } from './patchFields.js';
import { publishQsoEvent } from '../../../../qso/events.js';
import { ownedStation, qsoId, requestScope } from './scope.js';

type Changes = Record<string, string | number | null>;

/** `qso_date` + `time_on` (only together), then `time_off`: never earlier than the start. */
function timeChanges(body: Record<string, Scalar>, row: QsoRow, changes: Changes): void {
  const hasDate = 'qso_date' in body;
  const hasTime = 'time_on' in body;
  if (hasDate !== hasTime) {
    throw validationError('qso_date and time_on must be sent together', { field: hasDate ? 'time_on' : 'qso_date' });
  }
  let timeOn = row.time_on;
  if (hasDate) {
    const date = parseAdifDate(textValue('qso_date', body.qso_date!) ?? '');
    const time = parseAdifTime(textValue('time_on', body.time_on!) ?? '');
    if (date === null || time === null) {
      throw validationError('Invalid qso_date/time value', { field: date === null ? 'qso_date' : 'time_on' });
    }
    timeOn = combineDateTime(date, time);
    changes.time_on = timeOn;
  }
  if ('time_off' in body) {
    const text = textValue('time_off', body.time_off!);
    const timeOff = text === null ? null : parseAdifTime(text);
    if (text !== null && timeOff === null) throw validationError('Invalid time_off value', { field: 'time_off' });
    changes.time_off = timeOffFor(timeOn, null, timeOff);
  } else if (hasDate) {
    changes.time_off = timeOn;
  }
}

/** `station_profile_id`: another owned station location; the QSO takes over its callsign. */
async function stationChanges(request: RequestContext, value: Scalar, changes: Changes): Promise<void> {
  const station = ownedStation(request, value);
  changes.station_id = station.id;
  changes.station_callsign = station.callsign;
}

/** Column → value for every field in the body; 400 naming the first one that is not acceptable. */
async function changesFrom(request: RequestContext, row: QsoRow): Promise<Changes> {
  const body = request.body as Record<string, Scalar>;
  const names = Object.keys(body);
  for (const name of names) if (!isPlainField(name) && !isSpecialField(name)) rejectField(name);
  if (names.length === 0) throw validationError('No editable fields in request body');

  const changes: Changes = {};
  for (const name of names) if (isPlainField(name)) changes[name] = plainValue(name, body[name]!);
  timeChanges(body, row, changes);
  if ('mode' in body) {
    const { mode, submode } = splitMode(textValue('mode', body.mode!) ?? '');
    if (mode === '') throw validationError('Field "mode" cannot be empty', { field: 'mode' });
    changes.mode = mode;
    changes.submode = submode;
  }
  for (const name of ['freq', 'freq_rx'] as const) if (name in body) changes[name] = frequencyValue(name, body[name]!);
  if ('station_profile_id' in body) await stationChanges(request, body.station_profile_id!, changes);
  return changes;
}

/** PATCH /qso/{id}: partial update of a visible QSO; answers the fresh QSO object. */
export const updateQso: Handler = async (request) => {
  const { services, principal } = request;
  const id = qsoId(request);
  const scope = requestScope(request);
  const row = await findVisibleQso(services.db, scope, id);
  if (!row) throw notFound('QSO not found');

  const changes = await changesFrom(request, row);
  const after = { ...row, ...changes } as QsoRow;
  let fresh: QsoRow | null;
  try {
    fresh = await inQsoTransaction(services.db, [principal.userId], (client) => updateVisibleQso(client, scope, id, changes, after));
  } catch (error) {
    if (error instanceof DuplicateQsoError) {
      throw conflict(`The change would duplicate QSO ${error.existingId}`, { existing_id: error.existingId });
    }
    throw error;
  }
  if (!fresh) throw notFound('QSO not found');

  const movedFrom = fresh.station_id !== row.station_id ? [row.station_id] : [];
  publishQsoEvent(services, principal.userId, { type: 'qso_updated', qso_id: id, station_id: fresh.station_id }, movedFrom);
  return { data: presentQso(fresh) };
};
