import { Readable, Writable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { loadDupeIndex } from './dupeIndex.js';
import { loadImportStation } from './enrich.js';
import { RecordProcessor } from './recordProcessor.js';
import { AdifRowsTransform, RecordRowsTransform, type AdifFormat } from './rowStreams.js';
import { beginQsoWriteForStations } from '../qso/writeLock.js';
import { createStagingTable, DEFAULT_LIMITS, lockStationForImport, StagingWriter, type StoredRange } from './staging.js';
import type { ImportOptions, ImportSummary, RawRecord } from './types.js';

/**
 * Bulk imports: input → reader/normaliser/duplicate check (one Transform) → COPY into a
 * staging table → INSERT into qso, batch by batch while the input is still being read, all in
 * one transaction: any failure (unreadable input, database error, client gone) rolls the whole
 * import back.
 */

/** An ADIF (.adi) or ADX document; `format` is sniffed from the first bytes when absent. */
export function importAdif(db: pg.Pool, input: Readable, options: ImportOptions & { format?: AdifFormat }): Promise<ImportSummary> {
  return runImport(db, input, options, (processor) => new AdifRowsTransform(processor, options.format, options.onProgress));
}

/** JSON records (lower-case ADIF names, Hz frequencies unless options say otherwise). */
export function importRecords(db: pg.Pool, records: Iterable<RawRecord> | AsyncIterable<RawRecord>, options: ImportOptions): Promise<ImportSummary> {
  return runImport(db, Readable.from(records), options, (processor) => new RecordRowsTransform(processor, options.onProgress));
}

type RowsTransform = (processor: RecordProcessor) => Transform;

async function runImport(db: pg.Pool, input: Readable, options: ImportOptions, toRows: RowsTransform): Promise<ImportSummary> {
  if (options.dryRun) return dryRun(db, input, options, toRows);
  const client = await db.connect();
  // A connection lost mid-import fails the running query; without a listener the client's own
  // 'error' event would also crash the process.
  const ignore = () => undefined;
  client.on('error', ignore);
  let failure: Error | undefined;
  try {
    // A batch's INSERT into a big location may outlast the API's statement_timeout.
    await client.query('BEGIN; SET LOCAL statement_timeout = 0');
    await beginQsoWriteForStations(client, [options.stationId]);
    await lockStationForImport(client, options.stationId);
    const station = await loadImportStation(client, options.stationId, true);
    const dupes = await loadDupeIndex(client, options.stationId);
    await createStagingTable(client);
    const processor = new RecordProcessor(station, options, dupes);
    const staging = new StagingWriter(client, options.stationId, { ...DEFAULT_LIMITS, rowsPerBatch: options.rowsPerBatch ?? DEFAULT_LIMITS.rowsPerBatch });
    await pipeline(input, toRows(processor), staging, ...(options.signal ? [{ signal: options.signal }] : []));
    const { stored } = staging;
    options.signal?.throwIfAborted();
    await client.query('COMMIT');
    // Staged rows the INSERT left out lost a race with a concurrent writer: duplicates too.
    return summarize(processor, stored, processor.staged - stored.stored);
  } catch (error) {
    failure = error as Error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    // A connection that failed mid-COPY is not worth reusing: the pool opens a fresh one.
    client.off('error', ignore);
    client.release(failure);
  }
}

/**
 * Parses, normalises and checks duplicates against the stored QSOs, writing nothing: the
 * summary's `imported` is what the real run would store (barring concurrent writers).
 */
async function dryRun(db: pg.Pool, input: Readable, options: ImportOptions, toRows: RowsTransform): Promise<ImportSummary> {
  const station = await loadImportStation(db, options.stationId);
  const client = await db.connect();
  let dupes;
  try {
    dupes = await loadDupeIndex(client, options.stationId);
  } finally {
    client.release();
  }
  const processor = new RecordProcessor(station, options, dupes);
  const discard = new Writable({ objectMode: true, write: (_rows, _encoding, callback) => callback() });
  await pipeline(input, toRows(processor), discard);
  return summarize(processor, { stored: processor.staged, firstId: null, lastId: null }, 0);
}

function summarize(processor: RecordProcessor, stored: StoredRange, lostToConflicts: number): ImportSummary {
  return {
    parsed: processor.parsed,
    imported: stored.stored,
    skipped: processor.skipped + lostToConflicts,
    failed: processor.failed,
    messages: processor.messages.list(),
    firstId: stored.firstId,
    lastId: stored.lastId,
  };
}
