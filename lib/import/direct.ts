import { Readable } from 'node:stream';
import type pg from 'pg';
import type { TargetStation } from '../accounts/targetStations.js';
import { UnreadableInputError } from './errors.js';
import { importAdif } from './pipeline.js';
import { RecordProcessor } from './recordProcessor.js';
import { INSERT_COLUMNS, rowLabel } from './rowValues.js';
import { createItemReader, sniffAdifFormat } from './rowStreams.js';
import type { InsertBatcher } from './insertBatcher.js';
import type { AdifItemSink } from '../adif/itemReader.js';
import type { ImportOptions, ImportSummary } from './types.js';

/**
 * A small ADIF document (a logger's QSO or few) stored by one INSERT … ON CONFLICT DO NOTHING
 * (the InsertBatcher's, shared with other small inserts arriving meanwhile): the unique index
 * qso_dupe_key decides duplicates, of stored rows and within the document alike, so nothing
 * loads the location's duplicate keys and nothing waits for the import lock (an import into the
 * same location only delays it on a key both write). The same reader, normaliser and counts as
 * the pipeline, so the summary is the one the pipeline would give.
 */

/** Documents up to this many characters take the direct way; larger ones stream through the pipeline. */
export const DIRECT_MAX_CHARS = 64 * 1024;

/**
 * Reads, normalises and stores `text` (not a dry run: those stream through the pipeline). A
 * document with records to match against stored QSOs (a recognised download, a confirm or merge
 * policy) goes through the pipeline, which does the matching.
 */
export async function importSmallAdif(
  db: pg.Pool,
  inserts: InsertBatcher,
  text: string,
  station: TargetStation,
  options: Omit<ImportOptions, 'dryRun' | 'onProgress' | 'rowsPerBatch'>,
): Promise<ImportSummary> {
  const processor = new RecordProcessor(station, options, null);
  const rows: Array<Array<string | null>> = [];
  const bytes = Buffer.from(text, 'utf8');
  const reader = createItemReader(sniffAdifFormat(bytes, true)!);
  const sink: AdifItemSink = (item) => {
    const values = processor.itemValues(item);
    // The processor reuses its array from record to record.
    if (values !== null) rows.push(values.slice(0, INSERT_COLUMNS.length));
  };
  reader.push(bytes, sink);
  reader.end(sink);
  if (!reader.recognized) throw new UnreadableInputError(bytes);
  if (processor.toMatch > 0) return importAdif(db, Readable.from([bytes]), options);

  const outcomes = await inserts.insert({ stationId: station.id, ownerId: station.userId, rows, returnRows: false });
  const ids = outcomes.flatMap((outcome) => ('id' in outcome ? [outcome.id] : []));
  outcomes.forEach((outcome, index) => {
    if (!('id' in outcome)) processor.notes.add('duplicate', () => rowLabel(rows[index]!));
  });
  return {
    parsed: processor.parsed,
    imported: ids.length,
    confirmed: 0,
    unchanged: 0,
    unmatched: 0,
    ambiguous: 0,
    skipped: processor.skipped + processor.staged - ids.length,
    failed: processor.failed,
    messages: processor.summaryMessages(),
    download: processor.download,
    firstId: ids.length > 0 ? ids.reduce((a, b) => Math.min(a, b)) : null,
    lastId: ids.length > 0 ? ids.reduce((a, b) => Math.max(a, b)) : null,
  };
}
