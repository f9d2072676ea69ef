import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { loadDupeIndex } from './dupeIndex.js';
import { loadTargetStation } from '../accounts/targetStations.js';
import { matchStagedRows, type MatchBatchOptions } from './matchBatch.js';
import { MatchTally } from './matchTally.js';
import { RecordProcessor } from './recordProcessor.js';
import { AdifRowsTransform, RecordRowsTransform, type AdifFormat } from './rowStreams.js';
import { beginQsoWriteForStations } from '../qso/writeLock.js';
import { begin } from '../db/transaction.js';
import { createStagingTable, DEFAULT_LIMITS, lockStationForImport, StagingWriter, tryLockStationForImport, type StoredRange } from './staging.js';
import { wholeLogDownload, type ImportOptions, type ImportSummary, type RawRecord } from './types.js';
import { LocationBusyError } from './errors.js';

/**
 * Bulk imports: input → reader/normaliser/duplicate check (one Transform) → COPY of the new
 * records straight into qso (through a staging table for a batch that lost a race with a
 * concurrent writer) and, per batch (confirm and merge policies), COPY of the other records
 * into the staging table and one UPDATE of the stored QSOs they match, while the input is still
 * being read, all in one transaction: any failure (unreadable input, database error, client
 * gone) rolls the whole import back. A dry run does the same and rolls back.
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

/** work_mem of an import's transaction, in kB: a batch's rows with room to spare, per import running. */
const IMPORT_WORK_MEM_KB = 64 * 1024;

async function runImport(db: pg.Pool, input: Readable, options: ImportOptions, toRows: RowsTransform): Promise<ImportSummary> {
  const dryRun = options.dryRun === true;
  const client = await db.connect();
  // A connection lost mid-import fails the running query and emits 'error' on the client. Which
  // of the two names the cause depends on timing: PostgreSQL's own error (a terminated backend)
  // goes to whichever was active when it arrived, the other only says the socket closed or the
  // client "is not queryable". The server's error is reported when there is one.
  let connectionError: Error | undefined;
  const onConnectionError = (error: Error) => {
    connectionError ??= error;
  };
  client.on('error', onConnectionError);
  let failure: Error | undefined;
  try {
    // A batch's COPY into a big location may outlast the API's statement_timeout. The counting
    // trigger sees a COPY's rows as a transition table, kept in work_mem: at the default 4 MB a
    // batch's (up to 16 MiB of text) went to a temporary file and was read back (benchmarks/RESULTS.md).
    await begin(client, '', { statement_timeout: 0, work_mem: IMPORT_WORK_MEM_KB });
    // A dry run writes no QSO: it declares no write (readers of the change feed would wait for it)
    // and does not wait for other imports (a streamed v2 request reads one document into a real
    // import and a dry run side by side).
    if (!dryRun) {
      await beginQsoWriteForStations(client, [options.stationId]);
      if (options.lockWait !== 'none') await lockStationForImport(client, options.stationId);
      else if (!(await tryLockStationForImport(client, options.stationId))) throw new LocationBusyError(options.stationId);
    }
    const station = await loadTargetStation(client, options.stationId, true);
    const dupes = await loadDupeIndex(client, options.stationId);
    await createStagingTable(client);
    const processor = new RecordProcessor(station, options, dupes);
    const tally = new MatchTally(processor.notes);
    // Read before the first record is: the records' own inserts fill the location.
    const emptyLocation = dupes.size === 0;
    const matching = (): MatchBatchOptions => {
      // Decided per batch: the download a document is shows in its header or first record.
      const byDefault = options.insertUnmatched === undefined;
      const insertUnmatched = options.insertUnmatched ?? (emptyLocation || wholeLogDownload(processor.download));
      if (byDefault && insertUnmatched) processor.notes.insertedByDefault = true;
      return {
        stationId: options.stationId,
        operator: options.operator || null,
        policy: options.onDuplicate === 'merge' ? 'merge' : 'confirm',
        insertUnmatched,
        dryRun,
      };
    };
    const staging = new StagingWriter(client, options.stationId, { ...DEFAULT_LIMITS, rowsPerBatch: options.rowsPerBatch ?? DEFAULT_LIMITS.rowsPerBatch }, {
      dryRun,
      afterInsert: async () => {
        if (processor.toMatch === 0) return;
        const batch = matching();
        tally.add(await matchStagedRows(client, batch), batch.insertUnmatched);
      },
    });
    await pipeline(input, toRows(processor), staging, ...(options.signal ? [{ signal: options.signal }] : []));
    options.signal?.throwIfAborted();
    const summary = summarize(processor, staging.stored, tally, dryRun);
    if (!dryRun) await options.beforeCommit?.(client, summary);
    await client.query(dryRun ? 'ROLLBACK' : 'COMMIT');
    return summary;
  } catch (error) {
    // A busy location is no fault of the connection: it goes back to the pool for reuse.
    if (!(error instanceof LocationBusyError)) failure = error as Error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw [error, connectionError].find((candidate) => candidate instanceof pg.DatabaseError) ?? connectionError ?? error;
  } finally {
    // A connection that failed mid-COPY is not worth reusing: the pool opens a fresh one.
    client.off('error', onConnectionError);
    client.release(failure);
  }
}

function summarize(processor: RecordProcessor, stored: StoredRange, tally: MatchTally, dryRun: boolean): ImportSummary {
  // Staged rows the INSERT left out lost a race with a concurrent writer, and so did unmatched
  // download records an insert of them left out: duplicates too.
  const lostToConflicts = processor.staged - stored.stored + tally.meantToInsert - tally.inserted;
  processor.notes.addCount('duplicate', lostToConflicts);
  const firstIds = [stored.firstId, tally.firstId].filter((id) => id !== null);
  const lastIds = [stored.lastId, tally.lastId].filter((id) => id !== null);
  return {
    parsed: processor.parsed,
    imported: stored.stored + tally.inserted,
    confirmed: tally.changed,
    unchanged: tally.matched - tally.changed,
    unmatched: tally.unmatched,
    ambiguous: tally.ambiguous,
    skipped: processor.skipped + tally.skipped + lostToConflicts,
    failed: processor.failed,
    messages: processor.summaryMessages(),
    download: processor.download,
    firstId: dryRun || firstIds.length === 0 ? null : Math.min(...firstIds),
    lastId: dryRun || lastIds.length === 0 ? null : Math.max(...lastIds),
  };
}
