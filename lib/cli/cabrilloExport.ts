import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ProblemReport } from '../export/cabrillo/checks.js';
import { CabrilloOptionError, OPTION_NAMES, readCabrilloOptions } from '../export/cabrillo/options.js';
import { optionalString, UsageError, type CommandContext, type OptionSpec } from './command.js';

/** `--category-power LOW` and the other header values, as the query spells them with hyphens. */
export const CABRILLO_FLAGS: OptionSpec = Object.fromEntries(OPTION_NAMES.map((name) => [name.replaceAll('_', '-'), { type: 'string' }]));

export const CABRILLO_USAGE = '--contest ID --cabrillo [-o FILE] [--category-operator|band|mode|power|station|transmitter|assisted|overlay V] '
  + '[--club C] [--operators "A B"] [--name N] [--address "line\\nline"] [--email E] [--soapbox "line\\nline"] [--location L] [--claimed-score N]';

function problemLines(problems: ProblemReport[]): string {
  return problems.map((problem) => [`${problem.count} ${problem.message}`, ...problem.examples.map((example) => `  ${example}`)].join('\n')).join('\n');
}

/**
 * `logbook export --contest ID --cabrillo`: the session's Cabrillo log to FILE or stdout, every
 * QSO of the session's owner; the checks go to stderr (or the --json summary) and never stop
 * the export. A failed export leaves no partial file behind.
 */
export async function exportCabrillo({ values, io, database, result }: CommandContext, sessionId: number): Promise<void> {
  if (values.cabrillo !== true) throw new UsageError('--contest exports a contest session as Cabrillo: add --cabrillo');
  let options;
  try {
    options = readCabrilloOptions(Object.fromEntries(OPTION_NAMES.map((name) => [name, optionalString(values, name.replaceAll('_', '-'))])));
  } catch (error) {
    if (error instanceof CabrilloOptionError) throw new UsageError(`--${error.field.replaceAll('_', '-')}: ${error.message}`);
    throw error;
  }
  const db = await database();
  const { openCabrilloExport } = await import('../export/cabrillo/export.js');
  const exported = await openCabrilloExport(db.pool, { sessionId, userId: null, scope: null, options });
  if (!exported) throw new Error(`contest session ${sessionId} does not exist`);
  const path = optionalString(values, 'output');
  const out: Writable = path === undefined ? io.stdout : createWriteStream(path);
  try {
    await pipeline(exported.document, out, { end: path !== undefined });
  } catch (error) {
    if (path !== undefined) await unlink(path).catch(() => undefined);
    throw error;
  }
  const summary = { exported: exported.qsoCount, problem_count: exported.problemCount, problems: exported.problems, ...(path === undefined ? {} : { file: path }) };
  const human = `exported ${exported.qsoCount} QSOs of contest session ${sessionId}${path === undefined ? '' : ` to ${path}`}; ${exported.problemCount} problems`;
  if (path !== undefined) {
    if (exported.problems.length && !values.json) io.stderr.write(`${problemLines(exported.problems)}\n`);
    result(summary, human);
    return;
  }
  // stdout carries the document, so the summary and the checks go to stderr.
  io.stderr.write(`${values.json ? JSON.stringify(summary) : [human, problemLines(exported.problems)].filter(Boolean).join('\n')}\n`);
}
