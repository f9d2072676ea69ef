import { normalizeRecord } from '../adif/normalize.js';
import { fillDxcc, fillStation, stationCallsignMismatch } from './enrich.js';
import type { TargetStation } from '../accounts/targetStations.js';
import { newRow, rowValues } from './rowValues.js';
import type { ImportOptions, RawRecord } from './types.js';
import type { QsoRow } from '../qso/present.js';
import type { InsertBatcher } from './insertBatcher.js';

/**
 * A single JSON create: the bulk pipeline's rules (normaliser, DXCC and station fill, the
 * duplicate rule through the unique index), stored by the InsertBatcher with whatever other
 * small inserts arrive meanwhile: one statement declares the write, inserts, names the stored
 * twin of a duplicate and returns the stored row (a create's answer shows it: no read back). The
 * caller has loaded the location (its ownership check).
 */

export type InsertOneResult = { id: number; row: QsoRow } | { duplicateOf: number } | { rejected: string[] };

export async function insertOneQso(
  inserts: InsertBatcher,
  record: RawRecord,
  station: TargetStation,
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
  const [outcome] = await inserts.insert({ stationId: station.id, ownerId: station.userId, rows: [rowValues(qso, newRow())], returnRows: true });
  return 'id' in outcome! ? { id: outcome.id, row: outcome.row! } : outcome!;
}
