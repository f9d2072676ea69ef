import type { Writable } from 'node:stream';
import type pg from 'pg';
import { adifVersion } from '../adif/spec.js';
import { formatAdifHeader } from '../adif/writer.js';
import { SqlParams } from '../db/sqlParams.js';
import type { ConfirmationType } from '../qso/confirmationTypes.js';
import { bandCondition, confirmedCondition, dateRangeConditions, modeCondition } from '../qso/filters.js';
import { scopeConditions } from '../qso/scope.js';
import { sinceIdBound } from '../qso/changeBounds.js';
import { appVersion } from '../version.js';
import { EXPORT_SELECT_LIST } from './adifRecord.js';
import { CopyRecordReader, type RecordBatch } from './copyRecords.js';
import { readExportLocations } from './locations.js';
import { copyOut } from '../db/settingParams.js';
import { begin } from '../db/transaction.js';
import { writeWithBackPressure } from './backPressure.js';

/**
 * ADIF export: the filtered QSOs in ascending id order, streamed by `COPY (SELECT …) TO STDOUT`
 * and turned into records as the rows arrive, so memory stays flat whatever their number. The
 * rows' bytes become the records' bytes directly (ExportRecordFormatter), a piece of output per
 * piece of COPY output.
 *
 * COPY rather than a cursor: the server streams without a round trip per batch, and reading its
 * text rows costs this process about half of what the driver's per-column row parsing costs on
 * rows a hundred columns wide (measured, see docs/import-export.md). COPY takes no bound
 * parameters, so each value is handed over as a setting local to the export's transaction
 * (lib/db/settingParams.ts, with the ISO datestyle the formatter reads): values never become SQL text.
 */

export interface ExportFilter {
  /** Station locations to export; the caller has checked they are the requester's. */
  stationIds: number[];
  /** Only QSOs of this operator (club members below officer level). */
  operator?: string | null;
  /** Only QSOs with a greater id. */
  sinceId?: number;
  /**
   * For clients that page on by the last id they got (since_id, fetchfromid): stop below the
   * lowest id a running writer of these locations may still commit (docs/change-feed.md).
   */
  commitSafe?: boolean;
  /** Only QSOs with a smaller id (set from commitSafe). */
  idBelow?: number;
  /** A band, or 'SAT' for satellite QSOs. */
  band?: string | null;
  /** An exact callsign, normalised as stored. */
  callsign?: string | null;
  /** A main mode or submode. */
  mode?: string | null;
  /** Whole days 'YYYY-MM-DD', inclusive, either open (the v2 list's qso_since and qso_until). */
  since?: string | null;
  until?: string | null;
  /** Only QSOs confirmed by one of these types. */
  qslTypes?: ConfirmationType[] | null;
  limit?: number | null;
  offset?: number;
}

function exportQuery(filter: ExportFilter): { text: string; values: unknown[] } {
  const params = new SqlParams();
  const conditions = scopeConditions({ stationIds: filter.stationIds, operator: filter.operator ?? null }, params);
  // One location (the usual case): an equality lets the planner walk qso_station_id in id order.
  if (filter.stationIds.length === 1) conditions.push(`q.station_id = ${params.add(filter.stationIds[0])}::int`);
  if (filter.sinceId) conditions.push(`q.id > ${params.add(filter.sinceId)}::bigint`);
  if (filter.idBelow !== undefined) conditions.push(`q.id < ${params.add(filter.idBelow)}::bigint`);
  const band = filter.band ? bandCondition(filter.band, params) : null;
  if (band !== null) conditions.push(band);
  if (filter.callsign) conditions.push(`q.call = ${params.add(filter.callsign)}`);
  if (filter.mode) conditions.push(modeCondition(filter.mode, params));
  conditions.push(...dateRangeConditions(filter.since ?? null, filter.until ?? null, params));
  if (filter.qslTypes && filter.qslTypes.length > 0) conditions.push(confirmedCondition(filter.qslTypes));
  let text = `SELECT ${EXPORT_SELECT_LIST} FROM qso q WHERE ${conditions.join(' AND ')} ORDER BY q.id`;
  if (filter.limit !== undefined && filter.limit !== null) text += ` LIMIT ${params.add(filter.limit)}::bigint`;
  if (filter.offset) text += ` OFFSET ${params.add(filter.offset)}::bigint`;
  return { text, values: params.values };
}

/** Formatted records, a batch per piece of COPY output. */
async function* recordBatches(db: pg.Pool, filter: ExportFilter): AsyncGenerator<RecordBatch> {
  const client = await db.connect();
  // A connection lost mid-export fails the COPY; without a listener the client's own 'error'
  // event would also crash the process.
  const ignore = () => undefined;
  client.on('error', ignore);
  let finished = false;
  try {
    // The cut comes first, outside the export's transaction: its snapshot must be taken after it.
    if (filter.commitSafe) filter = { ...filter, idBelow: await sinceIdBound(client, filter.stationIds) };
    // One snapshot for the locations and the rows they fill.
    // A whole log's COPY may outlast the API's statement_timeout (a client that goes away ends
    // it instead).
    await begin(client, 'ISOLATION LEVEL REPEATABLE READ READ ONLY', { statement_timeout: 0 });
    const locations = await readExportLocations(client, filter.stationIds);
    const { text, values } = exportQuery(filter);
    // NULL as an empty value: ADIF has no NULL, and the mostly empty rows get a third as long.
    const copy = await copyOut(client, text, values, true);
    const reader = new CopyRecordReader(locations);
    for await (const chunk of copy as AsyncIterable<Buffer>) {
      const batch = reader.read(chunk);
      if (batch !== null) yield batch;
    }
    reader.end();
    await client.query('COMMIT');
    finished = true;
  } finally {
    client.off('error', ignore);
    // A COPY abandoned half-way (consumer stopped, error) keeps streaming: drop the connection.
    client.release(finished ? undefined : true);
  }
}

/** The matching QSOs as ADIF records (each ending "<EOR>\n"), ascending by id. */
export async function* exportAdifRecords(db: pg.Pool, filter: ExportFilter): AsyncIterable<{ id: number; adif: string }> {
  for await (const { bytes, ids, ends } of recordBatches(db, filter)) {
    for (let i = 0; i < ids.length; i++) yield { id: ids[i]!, adif: bytes.toString('utf8', i === 0 ? 0 : ends[i - 1], ends[i]) };
  }
}

/**
 * The matching QSOs as one ADIF document in pieces (header, then the records a piece of COPY
 * output makes), for a response body to stream. The first piece comes once the COPY answers,
 * so a failure to start is still the caller's to report; a consumer that stops early ends the COPY.
 */
export async function* exportAdifDocument(db: pg.Pool, filter: ExportFilter): AsyncGenerator<Buffer | string> {
  let header: string | null = exportHeader();
  for await (const { bytes } of recordBatches(db, filter)) {
    if (header !== null) {
      yield header;
      header = null;
    }
    yield bytes;
  }
  if (header !== null) yield header;
}

/** The ADIF header of an export document. */
export function exportHeader(): string {
  return formatAdifHeader({ programId: 'logbook', programVersion: appVersion, createdAt: new Date(), adifVersion: adifVersion() });
}

/**
 * Writes the matching QSOs to `out` as an ADIF document (header unless `header: false`),
 * honouring back-pressure. `out` is not ended, so callers can add to it. `lastFetchedId` is the
 * highest id written, else `sinceId`, else null: the value to pass as the next `sinceId`.
 * `onProgress` hears the QSOs and bytes written so far after each piece.
 */
export async function exportAdifStream(
  db: pg.Pool,
  filter: ExportFilter,
  out: Writable,
  options: { header?: boolean; onProgress?: (progress: { records: number; bytes: number }) => void } = {},
): Promise<{ exported: number; lastFetchedId: number | null }> {
  let exported = 0;
  let written = 0;
  let lastFetchedId: number | null = filter.sinceId ?? null;
  if (options.header !== false) {
    const header = exportHeader();
    await writeWithBackPressure(out, header);
    written += Buffer.byteLength(header);
  }
  for await (const { bytes, ids } of recordBatches(db, filter)) {
    await writeWithBackPressure(out, bytes);
    exported += ids.length;
    written += bytes.length;
    lastFetchedId = ids[ids.length - 1]!;
    options.onProgress?.({ records: exported, bytes: written });
  }
  return { exported, lastFetchedId };
}
