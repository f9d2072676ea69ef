import type { Writable } from 'node:stream';
import type pg from 'pg';
import QueryStream from 'pg-query-stream';
import { adifVersion } from '../adif/spec.js';
import { formatAdifHeader } from '../adif/writer.js';
import { SqlParams } from '../db/sqlParams.js';
import type { ConfirmationType } from '../qso/confirmationTypes.js';
import { bandCondition, confirmedCondition } from '../qso/filters.js';
import { scopeConditions } from '../qso/scope.js';
import { appVersion } from '../version.js';
import { EXPORT_SELECT_LIST, formatExportRow, rowId, type ExportRow } from './adifRecord.js';
import { writeWithBackPressure } from './backPressure.js';

/**
 * ADIF export: a cursor over the filtered QSOs in ascending id order, one record at a time,
 * so memory stays flat whatever the number of rows.
 */

export interface ExportFilter {
  /** Station locations to export; the caller has checked they are the requester's. */
  stationIds: number[];
  /** Only QSOs of this operator (club members below officer level). */
  operator?: string | null;
  /** Only QSOs with a greater id. */
  sinceId?: number;
  /** A band, or 'SAT' for satellite QSOs. */
  band?: string | null;
  /** Only QSOs confirmed by one of these types. */
  qslTypes?: ConfirmationType[] | null;
  limit?: number | null;
  offset?: number;
}

/** Rows fetched per cursor round trip. */
const CURSOR_BATCH_ROWS = 1000;
/** Output is written in pieces of about this many characters. */
const OUTPUT_BATCH_CHARS = 64 * 1024;

function exportQuery(filter: ExportFilter): { text: string; values: unknown[] } {
  const params = new SqlParams();
  const conditions = scopeConditions({ stationIds: filter.stationIds, operator: filter.operator ?? null }, params);
  if (filter.sinceId) conditions.push(`q.id > ${params.add(filter.sinceId)}`);
  const band = filter.band ? bandCondition(filter.band, params) : null;
  if (band !== null) conditions.push(band);
  if (filter.qslTypes && filter.qslTypes.length > 0) conditions.push(confirmedCondition(filter.qslTypes));
  let text = `SELECT ${EXPORT_SELECT_LIST} FROM qso q JOIN stations s ON s.id = q.station_id WHERE ${conditions.join(' AND ')} ORDER BY q.id`;
  if (filter.limit !== undefined && filter.limit !== null) text += ` LIMIT ${params.add(filter.limit)}`;
  if (filter.offset) text += ` OFFSET ${params.add(filter.offset)}`;
  return { text, values: params.values };
}

/** The matching QSOs as ADIF records (each ending "<EOR>\n"), ascending by id. */
export async function* exportAdifRecords(db: pg.Pool, filter: ExportFilter): AsyncIterable<{ id: number; adif: string }> {
  const client = await db.connect();
  // A connection lost mid-export fails the cursor; without a listener the client's own 'error'
  // event would also crash the process.
  const ignore = () => undefined;
  client.on('error', ignore);
  let finished = false;
  try {
    const { text, values } = exportQuery(filter);
    const rows = client.query(new QueryStream(text, values, { rowMode: 'array', batchSize: CURSOR_BATCH_ROWS }));
    for await (const row of rows as AsyncIterable<ExportRow>) yield { id: rowId(row), adif: formatExportRow(row) };
    finished = true;
  } finally {
    // A cursor abandoned half-way (consumer stopped, error) may leave the connection mid-protocol.
    client.off('error', ignore);
    client.release(finished ? undefined : true);
  }
}

/** The ADIF header of an export document. */
export function exportHeader(): string {
  return formatAdifHeader({ programId: 'logbook', programVersion: appVersion, createdAt: new Date(), adifVersion: adifVersion() });
}

/**
 * Writes the matching QSOs to `out` as an ADIF document (header unless `header: false`),
 * honouring back-pressure. `out` is not ended, so callers can add to it. `lastFetchedId` is the
 * highest id written, else `sinceId`, else null: the value to pass as the next `sinceId`.
 */
export async function exportAdifStream(
  db: pg.Pool,
  filter: ExportFilter,
  out: Writable,
  options: { header?: boolean } = {},
): Promise<{ exported: number; lastFetchedId: number | null }> {
  let exported = 0;
  let lastFetchedId: number | null = filter.sinceId ?? null;
  let pending = options.header === false ? '' : exportHeader();
  for await (const { id, adif } of exportAdifRecords(db, filter)) {
    exported++;
    lastFetchedId = id;
    pending += adif;
    if (pending.length >= OUTPUT_BATCH_CHARS) {
      await writeWithBackPressure(out, pending);
      pending = '';
    }
  }
  if (pending !== '') await writeWithBackPressure(out, pending);
  return { exported, lastFetchedId };
}
