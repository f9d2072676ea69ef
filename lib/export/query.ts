import type { Writable } from 'node:stream';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { adifVersion } from '../adif/spec.js';
import { formatAdifHeader } from '../adif/writer.js';
import { SqlParams } from '../db/sqlParams.js';
import type { ConfirmationType } from '../qso/confirmationTypes.js';
import { bandCondition, confirmedCondition } from '../qso/filters.js';
import { scopeConditions } from '../qso/scope.js';
import { sinceIdBound } from '../qso/changeBounds.js';
import { appVersion } from '../version.js';
import { EXPORT_SELECT_LIST, ExportRecordFormatter } from './adifRecord.js';
import { writeWithBackPressure } from './backPressure.js';
import { ByteOutput } from './byteOutput.js';

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
 * (set_config with a bound value) and the query reads it back with current_setting(): values
 * never become SQL text.
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
  if (filter.qslTypes && filter.qslTypes.length > 0) conditions.push(confirmedCondition(filter.qslTypes));
  let text = `SELECT ${EXPORT_SELECT_LIST} FROM qso q JOIN stations s ON s.id = q.station_id WHERE ${conditions.join(' AND ')} ORDER BY q.id`;
  if (filter.limit !== undefined && filter.limit !== null) text += ` LIMIT ${params.add(filter.limit)}::bigint`;
  if (filter.offset) text += ` OFFSET ${params.add(filter.offset)}::bigint`;
  return { text, values: params.values };
}

/** A parameter as setting text: arrays in PostgreSQL's array literal form. */
function settingText(value: unknown): string {
  return Array.isArray(value) ? `{${value.join(',')}}` : String(value);
}

/**
 * Hands the query's parameters to the server as transaction-local settings, one round trip,
 * and returns the query with each `$n` reading its setting.
 */
async function bindAsSettings(client: pg.PoolClient, text: string, values: unknown[]): Promise<string> {
  if (values.length > 0) {
    const calls = values.map((_, i) => `set_config('logbook.export_${i + 1}', $${i + 1}, true)`);
    await client.query(`SELECT ${calls.join(', ')}`, values.map(settingText));
  }
  return text.replace(/\$(\d+)/g, (_, n: string) => `current_setting('logbook.export_${n}')`);
}

/** ADIF records formatted from one piece of COPY output. */
interface RecordBatch {
  /** The records, each ending "<EOR>\n". */
  bytes: Buffer;
  /** Per record: its QSO's id, and where it ends in `bytes`. */
  ids: number[];
  ends: number[];
}

const NEWLINE = 0x0a;

/** Formatted records, a batch per piece of COPY output. */
async function* recordBatches(db: pg.Pool, filter: ExportFilter): AsyncGenerator<RecordBatch> {
  // The cut comes first, outside the export's transaction: its snapshot must be taken after it.
  if (filter.commitSafe) filter = { ...filter, idBelow: await sinceIdBound(db, filter.stationIds) };
  const client = await db.connect();
  // A connection lost mid-export fails the COPY; without a listener the client's own 'error'
  // event would also crash the process.
  const ignore = () => undefined;
  client.on('error', ignore);
  let finished = false;
  try {
    await client.query('BEGIN READ ONLY');
    // Dates and timestamps are read in ISO form; a whole log's COPY may outlast the API's
    // statement_timeout (a client that goes away ends it instead).
    await client.query("SET LOCAL datestyle = 'ISO'; SET LOCAL statement_timeout = 0");
    const { text, values } = exportQuery(filter);
    // NULL as an empty value: ADIF has no NULL, and the mostly empty rows get a third as long.
    const copy = client.query(copyTo(`COPY (${await bindAsSettings(client, text, values)}) TO STDOUT WITH (NULL '')`));
    const formatter = new ExportRecordFormatter();
    const out = new ByteOutput();
    let partial: Buffer | null = null;
    for await (const chunk of copy as AsyncIterable<Buffer>) {
      const input: Buffer = partial === null ? chunk : Buffer.concat([partial, chunk]);
      const batch: RecordBatch = { bytes: out.bytes, ids: [], ends: [] };
      let start = 0;
      for (let end = input.indexOf(NEWLINE); end !== -1; end = input.indexOf(NEWLINE, start)) {
        formatter.format(input, start, end, out);
        batch.ids.push(formatter.id);
        batch.ends.push(out.length);
        start = end + 1;
      }
      partial = start < input.length ? input.subarray(start) : null;
      if (batch.ids.length > 0) {
        batch.bytes = out.take();
        yield batch;
      }
    }
    if (partial !== null) throw new Error('COPY output ended inside a row');
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
  if (options.header !== false) await writeWithBackPressure(out, exportHeader());
  for await (const { bytes, ids } of recordBatches(db, filter)) {
    await writeWithBackPressure(out, bytes);
    exported += ids.length;
    lastFetchedId = ids[ids.length - 1]!;
  }
  return { exported, lastFetchedId };
}
