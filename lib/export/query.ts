import { StringDecoder } from 'node:string_decoder';
import type { Writable } from 'node:stream';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { adifVersion } from '../adif/spec.js';
import { formatAdifHeader } from '../adif/writer.js';
import { SqlParams } from '../db/sqlParams.js';
import type { ConfirmationType } from '../qso/confirmationTypes.js';
import { bandCondition, confirmedCondition } from '../qso/filters.js';
import { scopeConditions } from '../qso/scope.js';
import { appVersion } from '../version.js';
import { EXPORT_SELECT_LIST, formatExportRow, rowId } from './adifRecord.js';
import { writeWithBackPressure } from './backPressure.js';

/**
 * ADIF export: the filtered QSOs in ascending id order, streamed by `COPY (SELECT …) TO STDOUT`
 * and turned into records as the rows arrive, so memory stays flat whatever their number.
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
  /** A band, or 'SAT' for satellite QSOs. */
  band?: string | null;
  /** Only QSOs confirmed by one of these types. */
  qslTypes?: ConfirmationType[] | null;
  limit?: number | null;
  offset?: number;
}

/** Output is written in pieces of about this many characters. */
const OUTPUT_BATCH_CHARS = 64 * 1024;

function exportQuery(filter: ExportFilter): { text: string; values: unknown[] } {
  const params = new SqlParams();
  const conditions = scopeConditions({ stationIds: filter.stationIds, operator: filter.operator ?? null }, params);
  // One location (the usual case): an equality lets the planner walk qso_station_id in id order.
  if (filter.stationIds.length === 1) conditions.push(`q.station_id = ${params.add(filter.stationIds[0])}::int`);
  if (filter.sinceId) conditions.push(`q.id > ${params.add(filter.sinceId)}::bigint`);
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

/** Formatted records, a batch per piece of COPY output. */
async function* recordBatches(db: pg.Pool, filter: ExportFilter): AsyncGenerator<Array<{ id: number; adif: string }>> {
  const client = await db.connect();
  // A connection lost mid-export fails the COPY; without a listener the client's own 'error'
  // event would also crash the process.
  const ignore = () => undefined;
  client.on('error', ignore);
  let finished = false;
  try {
    await client.query('BEGIN READ ONLY');
    // Dates and timestamps are read in ISO form.
    await client.query("SET LOCAL datestyle = 'ISO'");
    const { text, values } = exportQuery(filter);
    const copy = client.query(copyTo(`COPY (${await bindAsSettings(client, text, values)}) TO STDOUT`));
    const decoder = new StringDecoder('utf8');
    let partial = '';
    for await (const chunk of copy as AsyncIterable<Buffer>) {
      const lines = (partial + decoder.write(chunk)).split('\n');
      partial = lines.pop()!;
      yield lines.map((line) => {
        const row = line.split('\t');
        return { id: rowId(row), adif: formatExportRow(row) };
      });
    }
    if (partial + decoder.end() !== '') throw new Error('COPY output ended inside a row');
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
  for await (const batch of recordBatches(db, filter)) yield* batch;
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
  for await (const batch of recordBatches(db, filter)) {
    for (const { id, adif } of batch) {
      pending += adif;
      lastFetchedId = id;
    }
    exported += batch.length;
    if (pending.length >= OUTPUT_BATCH_CHARS) {
      await writeWithBackPressure(out, pending);
      pending = '';
    }
  }
  if (pending !== '') await writeWithBackPressure(out, pending);
  return { exported, lastFetchedId };
}
