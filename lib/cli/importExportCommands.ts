import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import { open, unlink } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { once } from 'node:events';
import type pg from 'pg';
import { loadConfig } from '../config.js';
import { DUPLICATE_POLICIES, isDuplicatePolicy, type DownloadSource, type DuplicatePolicy, type ImportSummary } from '../import/types.js';
import { optionalString, parseId, requireId, UsageError, type CliIo, type Command } from './command.js';
import { CABRILLO_FLAGS, CABRILLO_USAGE, exportCabrillo } from './cabrilloExport.js';
import { gunzipIfCompressed } from './gzipInput.js';
import { createProgressReporter, type ProgressReporter } from './progressReporter.js';
import type { ExportFilter } from '../export/query.js';

/** Reading ADIF files in pieces of this size keeps the tokenizer's per-call overhead low. */
const READ_CHUNK_BYTES = 256 * 1024;

/** The file (or stdin for "-") and its size when known; a file that cannot be read fails here. */
async function openInput(path: string, stdin: Readable): Promise<{ input: Readable; size: number | null }> {
  if (path === '-') return { input: stdin, size: null };
  let handle;
  try {
    handle = await open(path, 'r');
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error('not a regular file');
    return { input: handle.createReadStream({ highWaterMark: READ_CHUNK_BYTES }), size: stats.size };
  } catch (error) {
    await handle?.close();
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** The counts on one line, then the grouped messages (bounded by the import: MESSAGES_MAX_BYTES). */
function humanSummary(summary: ImportSummary, stationId: number, dryRun: boolean): string {
  const ids = summary.firstId === null ? '' : ` (ids ${summary.firstId}–${summary.lastId})`;
  const download = summary.download === null ? '' : ` from a ${DOWNLOAD_NAMES[summary.download]}`;
  const head = dryRun
    ? `dry run, nothing written: ${summary.parsed} records read${download}, ${summary.imported} would be imported into station location ${stationId}`
    : `imported ${summary.imported} of ${summary.parsed} records${download} into station location ${stationId}${ids}`;
  const matching = summary.confirmed + summary.unchanged + summary.unmatched + summary.ambiguous > 0
    ? `; ${summary.confirmed} QSOs ${dryRun ? 'would be ' : ''}confirmed, ${summary.unchanged} unchanged, ${summary.unmatched} records unmatched, ${summary.ambiguous} ambiguous`
    : '';
  const counts = `${head}${matching}; ${summary.skipped} duplicates skipped, ${summary.failed} records failed`;
  return [counts, ...summary.messages.map((message) => `  ${message}`)].join('\n');
}

const DOWNLOAD_NAMES: Readonly<Record<DownloadSource, string>> = {
  lotw: 'LoTW report', qrz: 'QRZ logbook download', eqsl: 'eQSL inbox', clublog: 'Club Log download',
};

/** --insert-unmatched / --no-insert-unmatched; neither: by what the download is. */
function insertUnmatched(values: Readonly<Record<string, unknown>>): boolean | undefined {
  const on = values['insert-unmatched'] === true;
  const off = values['no-insert-unmatched'] === true;
  if (on && off) throw new UsageError('--insert-unmatched and --no-insert-unmatched contradict each other');
  return on ? true : off ? false : undefined;
}

function parsePolicy(value: string | undefined): DuplicatePolicy | undefined {
  if (value === undefined || isDuplicatePolicy(value)) return value;
  throw new UsageError(`--on-duplicate must be one of ${DUPLICATE_POLICIES.join(', ')} (got "${value}")`);
}

export const importCommand: Command = {
  name: 'import',
  usage: `import FILE|- --station ID [--on-duplicate ${DUPLICATE_POLICIES.join('|')}] [--insert-unmatched|--no-insert-unmatched] [--strict-callsign] [--dry-run] [--json] [--config FILE]`,
  options: {
    json: { type: 'boolean' },
    station: { type: 'string' },
    'on-duplicate': { type: 'string' },
    'insert-unmatched': { type: 'boolean' },
    'no-insert-unmatched': { type: 'boolean' },
    'strict-callsign': { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    config: { type: 'string' },
  },
  positionals: { min: 1, max: 1 },
  async run({ values, positionals, io, database, result }) {
    const stationId = requireId(values, 'station');
    const dryRun = values['dry-run'] === true;
    const onDuplicate = parsePolicy(optionalString(values, 'on-duplicate'));
    const unmatched = insertUnmatched(values);
    const config = loadConfig(optionalString(values, 'config') ?? io.env.LOGBOOK_CONFIG, io.env);
    const opened = await openInput(positionals[0]!, io.stdin);
    const { input, compressed } = await gunzipIfCompressed(opened.input);
    const db = await database({ poolMode: config.database.pool_mode, warmUp: true });
    // The pipeline is loaded on demand, as the export: other commands start without it.
    const { importAdif } = await import('../import/pipeline.js');
    // Progress counts decompressed bytes, so a compressed file's size says nothing about the end.
    const progress = createProgressReporter(io.stderr, { kind: 'import', total: compressed ? null : opened.size });
    let summary: ImportSummary;
    try {
      summary = await importAdif(db.pool, input, {
        stationId,
        frequencyUnit: 'MHz',
        dryRun,
        onDuplicate,
        insertUnmatched: unmatched,
        strictCallsign: values['strict-callsign'] === true,
        door: 'cli',
        rowsPerBatch: config.import_batch_rows,
        onProgress: progress.update,
      });
    } finally {
      progress.finish();
      input.destroy();
      opened.input.destroy();
    }
    const { firstId, lastId, ...counts } = summary;
    result({ ...counts, first_id: firstId, last_id: lastId, dry_run: dryRun }, humanSummary(summary, stationId, dryRun));
  },
};

function parseSinceId(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value)) throw new UsageError(`--since-id must be a non-negative integer (got "${value}")`);
  return Number(value);
}

async function requireStation(db: pg.Pool, stationId: number): Promise<void> {
  const { rowCount } = await db.query('SELECT 1 FROM stations WHERE id = $1', [stationId]);
  if (rowCount === 0) throw new Error(`station location ${stationId} does not exist`);
}

/**
 * Progress of an export on stderr, unless the document goes to stdout and stderr shows it too
 * (stdout a terminal) or carries the JSON summary a script reads (`--json`). A whole location's
 * export knows its end: the location's QSOs, summed from its month counts.
 */
async function exportProgress(db: pg.Pool, io: CliIo, stationId: number, sinceId: number | undefined, toFile: boolean, json: boolean): Promise<ProgressReporter | null> {
  if (!toFile && (io.stdout.isTTY || json)) return null;
  let total: number | null = null;
  if (sinceId === undefined) {
    const { scopeTotalSql } = await import('../qso/counts.js');
    total = (await db.query<{ total: number }>(scopeTotalSql(['c.station_id = $1::int']), [stationId])).rows[0]!.total;
  }
  return createProgressReporter(io.stderr, { kind: 'export', total });
}

/** Exports into `path` (gzip-compressed when it ends in .gz); a failed export leaves no partial file behind. */
async function exportToFile(db: pg.Pool, filter: ExportFilter, path: string, progress: ProgressReporter | null) {
  const { exportAdifStream } = await import('../export/query.js');
  const file = createWriteStream(path);
  // A path that cannot be opened fails here, as the command's error: its 'error' event, emitted
  // later with no listener, crashed the process with a stack trace.
  await once(file, 'open');
  const out: Writable = path.endsWith('.gz') ? createGzip() : file;
  if (out !== file) out.pipe(file);
  try {
    const outcome = await exportAdifStream(db, filter, out, { onProgress: progress?.update });
    out.end();
    await finished(file);
    return outcome;
  } catch (error) {
    out.destroy();
    file.destroy();
    await unlink(path).catch(() => undefined);
    throw error;
  } finally {
    progress?.finish();
  }
}

export const exportCommand: Command = {
  name: 'export',
  usage: `export --station ID [--since-id N] [-o FILE[.gz]] [--json] | export ${CABRILLO_USAGE} [--json]`,
  options: {
    json: { type: 'boolean' }, station: { type: 'string' }, 'since-id': { type: 'string' }, output: { type: 'string', short: 'o' },
    contest: { type: 'string' }, cabrillo: { type: 'boolean' }, ...CABRILLO_FLAGS,
  },
  async run(context) {
    const { values, io, database, result } = context;
    const contest = optionalString(values, 'contest');
    if (contest !== undefined) return exportCabrillo(context, parseId(contest, '--contest'));
    if (values.cabrillo === true) throw new UsageError('--cabrillo exports a contest session: add --contest ID');
    const stationId = requireId(values, 'station');
    const sinceId = parseSinceId(optionalString(values, 'since-id'));
    const path = optionalString(values, 'output');
    const db = await database({ warmUp: true });
    await requireStation(db.pool, stationId);
    const filter: ExportFilter = { stationIds: [stationId], sinceId, commitSafe: sinceId !== undefined };
    const progress = await exportProgress(db.pool, io, stationId, sinceId, path !== undefined, values.json === true);
    if (path !== undefined) {
      const { exported, lastFetchedId } = await exportToFile(db.pool, filter, path, progress);
      result({ exported, last_fetched_id: lastFetchedId, file: path }, `exported ${exported} QSOs to ${path} (last id ${lastFetchedId ?? 'none'})`);
      return;
    }
    // stdout carries the document, so the summary goes to stderr.
    const { exportAdifStream } = await import('../export/query.js');
    // A reader that stops early (`| head`) closes the pipe. stdout stays writable after its EPIPE
    // (writes fail one by one), so the export stops at its next piece, and quietly (lib/cli/main.ts).
    let closedOutput: Error | undefined;
    io.stdout.on('error', (error) => (closedOutput ??= error));
    const onProgress = (done: { records: number; bytes: number }) => {
      if (closedOutput) throw closedOutput;
      progress?.update(done);
    };
    let outcome;
    try {
      outcome = await exportAdifStream(db.pool, filter, io.stdout, { onProgress });
    } finally {
      progress?.finish();
    }
    const summary = { exported: outcome.exported, last_fetched_id: outcome.lastFetchedId };
    io.stderr.write(`${values.json ? JSON.stringify(summary) : `exported ${outcome.exported} QSOs (last id ${outcome.lastFetchedId ?? 'none'})`}\n`);
  },
};
