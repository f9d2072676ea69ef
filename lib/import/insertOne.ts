import type pg from 'pg';
import { normalizeRecord } from '../adif/normalize.js';
import { fillDxcc, fillStation, stationCallsignMismatch, type ImportStation } from './enrich.js';
import { INSERT_COLUMNS, newRow, rowValues } from './rowValues.js';
import type { ImportOptions, RawRecord } from './types.js';
import { qsoWriterCte } from '../qso/writeLock.js';
import { qsoSelectList, type QsoRow } from '../qso/present.js';

/**
 * A single JSON create: the bulk pipeline's rules (normaliser, DXCC and station fill, the
 * duplicate rule through the unique index) in one round trip: a single statement that declares
 * the write, inserts, reports the stored duplicate it collided with and returns the stored row (a
 * create's answer shows it: no read back). The caller has loaded the location (its ownership
 * check).
 */

export type InsertOneResult = { id: number; row: QsoRow } | { duplicateOf: number } | { rejected: string[] };

const COLUMN_LIST = INSERT_COLUMNS.map((column) => column.name).join(', ');
const VALUE_LIST = INSERT_COLUMNS.map((_, i) => `$${i + 2}`).join(', ');
/** Parameters after the values: the duplicate key again, typed for the lookup, then the owner. */
const KEY = INSERT_COLUMNS.length + 2;
const OWNERS = KEY + 4;

/**
 * The lookup sees the rows committed before the statement began, so it finds the stored twin of
 * a conflict unless that twin was committed while the INSERT ran (then DUPLICATE_SQL asks again).
 */
const INSERT_SQL = `
  ${qsoWriterCte(OWNERS)}, stored AS (
    INSERT INTO qso AS q (station_id, ${COLUMN_LIST}) SELECT $1, ${VALUE_LIST} FROM qso_writer
    ON CONFLICT DO NOTHING
    RETURNING ${qsoSelectList('q')}
  )
  SELECT stored.*, (${duplicateLookup(KEY)}) AS duplicate_of FROM (SELECT) AS one LEFT JOIN stored ON true`;

const DUPLICATE_SQL = `SELECT (${duplicateLookup(2)}) AS duplicate_of`;

/** The duplicate rule as a lookup the unique index qso_dupe_key answers; params: call, time_on, band, mode. */
function duplicateLookup(first: number): string {
  return `SELECT id FROM qso WHERE station_id = $1 AND call = $${first}::text
    AND date_trunc('minute', time_on) = date_trunc('minute', $${first + 1}::timestamp)
    AND band = $${first + 2}::text AND mode = $${first + 3}::text LIMIT 1`;
}

export async function insertOneQso(
  db: pg.Pool,
  record: RawRecord,
  station: ImportStation,
  options: Omit<ImportOptions, 'dryRun' | 'onProgress' | 'stationId'>,
): Promise<InsertOneResult> {
  const { qso, messages } = normalizeRecord(record, { frequencyUnit: options.frequencyUnit });
  if (qso === null) return { rejected: messages };
  if (options.checkStationCallsign) {
    const mismatch = stationCallsignMismatch(qso, station);
    if (mismatch !== null) return { rejected: [mismatch] };
  }
  fillDxcc(qso);
  fillStation(qso, station, options.operator, options.defaultOperator);
  const key = [qso.call, qso.timeOn, qso.band, qso.mode];
  const { rows } = await db.query<QsoRow & { duplicate_of: string | number | null }>(
    INSERT_SQL, [station.id, ...rowValues(qso, newRow()), ...key, [station.userId]]);
  // Nothing stored: the row's columns are null (the LEFT JOIN), the duplicate is named.
  const { duplicate_of: duplicateOf, ...row } = rows[0]!;
  if ((row.id as number | null) !== null) return { id: row.id, row };
  if (duplicateOf !== null) return { duplicateOf: Number(duplicateOf) };
  const { rows: again } = await db.query<{ duplicate_of: string | number | null }>(DUPLICATE_SQL, [station.id, ...key]);
  if (again[0]!.duplicate_of === null) throw new Error('QSO was neither stored nor found as a duplicate');
  return { duplicateOf: Number(again[0]!.duplicate_of) };
}
