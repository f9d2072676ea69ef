import { validationError } from '../../../errors.js';
import { isBlank } from '../../../../input/jsonValues.js';
import { readIdList, readInteger, readText } from '../../../bodyValues.js';
import { combineDateTime, parseDateTime } from '../../../../adif/datetime.js';
import { contestEntry, type SessionFields } from '../../../../contests/session.js';

const REQUIRED: readonly (keyof SessionFields)[] = ['contest', 'station_id', 'time_start'];

function readContest(value: unknown): string {
  const entry = contestEntry(readText(value, 'contest', 64));
  if (!entry) throw validationError('Unknown contest: not an ADIF Contest_ID', { field: 'contest' });
  return entry.contest;
}

/** `YYYY-MM-DD HH:MM[:SS]` (or with `T` and a trailing `Z`), UTC. */
function readDateTime(value: unknown, field: string): string {
  const parsed = parseDateTime(readText(value, field, 32));
  if (!parsed) throw validationError(`Field "${field}" must be a date and time YYYY-MM-DD HH:MM[:SS] (UTC)`, { field, format: 'YYYY-MM-DD HH:MM[:SS]' });
  return combineDateTime(parsed.date, parsed.time);
}

const READERS: { [K in keyof SessionFields]: (value: unknown) => SessionFields[K] } = {
  contest: readContest,
  station_id: (value) => readInteger(value, 'station_id', { min: 1 })!,
  time_start: (value) => readDateTime(value, 'time_start'),
  time_end: (value) => (isBlank(value) ? null : readDateTime(value, 'time_end')),
  comment: (value) => readText(value, 'comment', 4000),
};

/** The session members present in a body, validated (station ownership is the caller's check). */
export function readSessionChanges(body: Record<string, unknown>): Partial<SessionFields> {
  const blank = REQUIRED.filter((field) => field in body && isBlank(body[field]));
  if (blank.length) throw validationError(`Field(s) cannot be cleared: ${blank.join(', ')}`, { fields: blank });
  const changes: Partial<Record<keyof SessionFields, unknown>> = {};
  for (const field of Object.keys(READERS) as (keyof SessionFields)[]) {
    if (field in body) changes[field] = READERS[field](body[field]);
  }
  return changes as Partial<SessionFields>;
}

/** A create body: contest, station_id and time_start are required (`details.missing` names all absent ones). */
export function readNewSession(body: Record<string, unknown>): SessionFields {
  const missing = REQUIRED.filter((field) => isBlank(body[field]));
  if (missing.length) throw validationError(`Missing required field(s): ${missing.join(', ')}`, { missing });
  return { time_end: null, comment: '', ...readSessionChanges(body) } as SessionFields;
}

/** The end of a session cannot precede its start. */
export function checkTimeOrder(fields: Pick<SessionFields, 'time_start' | 'time_end'>): void {
  if (fields.time_end !== null && fields.time_end < fields.time_start) {
    throw validationError('time_end must not be before time_start', { field: 'time_end' });
  }
}

/** `link_qso_ids` / `unlink_qso_ids`: comma-separated QSO ids. */
export function readQsoIds(body: Record<string, unknown>, field: 'link_qso_ids' | 'unlink_qso_ids'): number[] {
  return readIdList(body[field], field);
}
