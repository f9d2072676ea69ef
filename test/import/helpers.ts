import { Readable } from 'node:stream';
import type pg from 'pg';
import { formatAdifRecord } from '../../lib/adif/writer.js';
import { importAdif } from '../../lib/import/pipeline.js';
import type { ImportOptions, ImportSummary } from '../../lib/import/types.js';

/** Shared by the import and export tests. */

export type Fields = Array<[string, string]>;

/** A document of records written by the project's ADIF writer (code-point lengths); `header` goes before <EOH>. */
export function adifDocument(records: readonly Fields[], header = ''): string {
  return `test log\n${header}<EOH>\n${records.map((fields) => formatAdifRecord(fields)).join('')}`;
}

/** A minimal valid record: CALL, date, time, band and mode, plus `more`. */
export function qso(call: string, date: string, time: string, band: string, mode: string, more: Fields = []): Fields {
  return [['CALL', call], ['QSO_DATE', date], ['TIME_ON', time], ['BAND', band], ['MODE', mode], ...more];
}

export function importText(db: pg.Pool, text: string, options: Partial<ImportOptions> & { stationId: number }): Promise<ImportSummary> {
  return importAdif(db, Readable.from([Buffer.from(text, 'utf8')]), { frequencyUnit: 'MHz', ...options });
}

export async function qsoCount(db: pg.Pool, stationId?: number): Promise<number> {
  const { rows } = stationId === undefined
    ? await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso')
    : await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [stationId]);
  return rows[0]!.n;
}
