import { Readable } from 'node:stream';
import type pg from 'pg';
import { SQL_TYPE } from '../db/qsoColumns.js';
import type { ImportStation } from './enrich.js';
import { UnreadableInputError } from './errors.js';
import { qsoWriterCte } from '../qso/writeLock.js';
import { importAdif } from './pipeline.js';
import { RecordProcessor } from './recordProcessor.js';
import { INSERT_COLUMNS } from './rowValues.js';
import { createItemReader, sniffAdifFormat } from './rowStreams.js';
import type { StoredRange } from './staging.js';
import type { AdifItemSink } from '../adif/itemReader.js';
import type { ImportOptions, ImportSummary } from './types.js';

/**
 * A small ADIF document (a logger's QSO or few) stored by one INSERT … ON CONFLICT DO NOTHING:
 * the unique index qso_dupe_key decides duplicates, of stored rows and within the document
 * alike, so nothing loads the location's duplicate keys and nothing waits for the import lock
 * (an import into the same location only delays it on a key both write). The same reader,
 * normaliser and counts as the pipeline, so the summary is the one the pipeline would give.
 */

/** Documents up to this many characters take the direct way; larger ones stream through the pipeline. */
export const DIRECT_MAX_CHARS = 64 * 1024;

const DEADLOCK_DETECTED = '40P01';
/** A multi-row insert can deadlock with an import writing the same keys in another order; it is then simply repeated. */
const DEADLOCK_ATTEMPTS = 3;

const COLUMN_LIST = INSERT_COLUMNS.map((column) => column.name).join(', ');
/** One array parameter per column, so the statement is the same whatever the number of rows. */
const ARRAY_LIST = INSERT_COLUMNS.map((column, i) => `$${i + 2}::${SQL_TYPE[column.kind]}[]`).join(', ');
/** The owner, after the columns. */
const OWNERS = INSERT_COLUMNS.length + 2;

/** One statement, no transaction around it (lib/qso/writeLock.ts qsoWriterCte). */
const INSERT_SQL = `
  ${qsoWriterCte(OWNERS)}, stored AS (
    INSERT INTO qso (station_id, ${COLUMN_LIST})
    SELECT $1, rows.* FROM qso_writer, unnest(${ARRAY_LIST}) AS rows
    ON CONFLICT DO NOTHING
    RETURNING id
  )
  SELECT count(*)::int AS stored, min(id) AS first_id, max(id) AS last_id FROM stored`;

/**
 * Reads, normalises and stores `text` (not a dry run: those stream through the pipeline). A
 * document with records to match against stored QSOs (a recognised download, a confirm or merge
 * policy) goes through the pipeline, which does the matching.
 */
export async function importSmallAdif(
  db: pg.Pool,
  text: string,
  station: ImportStation,
  options: Omit<ImportOptions, 'dryRun' | 'onProgress' | 'rowsPerBatch'>,
): Promise<ImportSummary> {
  const processor = new RecordProcessor(station, options, null);
  const columns: Array<Array<string | null>> = INSERT_COLUMNS.map(() => []);
  const bytes = Buffer.from(text, 'utf8');
  const reader = createItemReader(sniffAdifFormat(bytes, true)!);
  const sink: AdifItemSink = (item) => {
    const values = processor.itemValues(item);
    if (values !== null) columns.forEach((column, i) => column.push(values[i]!));
  };
  reader.push(bytes, sink);
  reader.end(sink);
  if (!reader.recognized) throw new UnreadableInputError(bytes);
  if (processor.toMatch > 0) return importAdif(db, Readable.from([bytes]), options);

  const stored: StoredRange = processor.staged > 0 ? await insertRows(db, station, columns) : { stored: 0, firstId: null, lastId: null };
  return {
    parsed: processor.parsed,
    imported: stored.stored,
    confirmed: 0,
    unchanged: 0,
    unmatched: 0,
    ambiguous: 0,
    skipped: processor.skipped + processor.staged - stored.stored,
    failed: processor.failed,
    messages: processor.messages.list(),
    download: processor.download,
    firstId: stored.firstId,
    lastId: stored.lastId,
  };
}

async function insertRows(db: pg.Pool, station: ImportStation, columns: Array<Array<string | null>>): Promise<StoredRange> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { rows } = await db.query<{ stored: number; first_id: string | null; last_id: string | null }>(
        INSERT_SQL, [station.id, ...columns, [station.userId]]);
      const { stored, first_id: firstId, last_id: lastId } = rows[0]!;
      return { stored, firstId: firstId === null ? null : Number(firstId), lastId: lastId === null ? null : Number(lastId) };
    } catch (error) {
      if ((error as { code?: string }).code !== DEADLOCK_DETECTED || attempt === DEADLOCK_ATTEMPTS) throw error;
    }
  }
}
