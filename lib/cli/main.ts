import { parseArgs } from 'node:util';
import type { Database } from '../db/database.js';
import { ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../log.js';
import { UsageError, type CliIo, type Command, type OptionValues } from './command.js';
import { commandHelp, overview } from './help.js';
import { clubMemberAdd, clubMemberRemove, logbookAdd, logbookPublish, logbookUnpublish, stationAdd, stationList, userAdd, userList, userSetPassword } from './accountCommands.js';
import { keyCreate, tokenCreate, tokenList, tokenRevoke } from './tokenCommands.js';
import { migrateCommand, serveCommand } from './serverCommands.js';
import { exportCommand, importCommand } from './importExportCommands.js';
import { workerCommand } from './workerCommand.js';
import { appVersion } from '../version.js';
import { constraintSentence } from './databaseErrors.js';

/**
 * Said on stderr before a command creates a new, empty instance (no DATABASE_URL and no
 * embedded cluster in the data folder), so that a command run in the wrong folder does not
 * answer from an empty database as if it were the operator's.
 */
async function announceNewInstance({ env, stderr }: CliIo): Promise<void> {
  if (env.DATABASE_URL) return;
  const { embeddedClusterExists, logbookHome } = await import('../db/embedded.js');
  if (embeddedClusterExists()) return;
  stderr.write(`logbook: no DATABASE_URL and no instance in ${logbookHome()}: creating a new, empty embedded PostgreSQL database there ` +
    '(set DATABASE_URL, or LOGBOOK_HOME to the folder of an existing instance, to use that one)\n');
}

/** The reader of stdout went away (`logbook export … | head`): it has all it wanted. */
function isClosedOutput(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'EPIPE';
}

export const commands: Command[] = [
  serveCommand, migrateCommand, userAdd, userList, userSetPassword, clubMemberAdd, clubMemberRemove, stationAdd, stationList, logbookAdd, logbookPublish, logbookUnpublish,
  tokenCreate, tokenRevoke, tokenList, keyCreate, importCommand, exportCommand, workerCommand,
];

function usage(): string {
  return overview(commands);
}

/** The command whose words start argv, longest name first ("club member add" before "club"). */
function findCommand(argv: string[]): { command: Command; rest: string[] } | null {
  const sorted = [...commands].sort((a, b) => b.name.split(' ').length - a.name.split(' ').length);
  for (const command of sorted) {
    const words = command.name.split(' ');
    if (words.every((word, i) => argv[i] === word)) return { command, rest: argv.slice(words.length) };
  }
  return null;
}

/** The process's own; read when used (touching process.stdin opens it). */
const processIo: CliIo = {
  get stdin() { return process.stdin; },
  get stdout() { return process.stdout; },
  get stderr() { return process.stderr; },
  get env() { return process.env; },
};

/** Runs the command line `argv`; the exit status. Commands other than serve and worker keep to `io`. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const { stdout, stderr } = io;
  if (argv.length === 1 && argv[0] === '--version') {
    stdout.write(`${appVersion}\n`);
    return 0;
  }
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help')) {
    stdout.write(`${usage()}\n`);
    return 0;
  }
  const asked = argv[0] === 'help' ? findCommand(argv.slice(1)) : null;
  if (asked && asked.rest.length === 0) {
    stdout.write(`${commandHelp(asked.command)}\n`);
    return 0;
  }
  const found = findCommand(argv);
  if (found && (found.rest.includes('--help') || found.rest.includes('-h'))) {
    stdout.write(`${commandHelp(found.command)}\n`);
    return 0;
  }
  if (!found) {
    stderr.write(`${argv.length ? `logbook: unknown command "${argv.join(' ')}"\n` : ''}${usage()}\n`);
    return 2;
  }
  const { command, rest } = found;
  const logger = createLogger({ command: command.name });
  let db: Database | undefined;
  try {
    const { values, positionals } = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
    const bounds = command.positionals ?? { min: 0, max: 0 };
    if (positionals.length < bounds.min || positionals.length > bounds.max) throw new UsageError('wrong number of arguments');
    await command.run({
      values: values as OptionValues,
      positionals,
      logger,
      io,
      async database(options) {
        // Loaded on demand, as each command loads its own parts: `logbook --help` starts quickly.
        const { openDatabase } = await import('../db/database.js');
        if (!db) await announceNewInstance(io);
        const poolMode = options?.poolMode ?? loadConfig(io.env.LOGBOOK_CONFIG, io.env).database.pool_mode;
        db ??= await openDatabase({ ...options, url: io.env.DATABASE_URL, poolMode, warmUp: options?.warmUp ?? false, logger: command.name === 'serve' ? logger : createLogger({}, true) });
        return db;
      },
      result(json, human) {
        stdout.write((values.json ? JSON.stringify(json) : human) + '\n');
      },
    });
    return 0;
  } catch (error) {
    if (isClosedOutput(error)) return 0;
    const message = constraintSentence(error) ?? (error as Error).message;
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      stderr.write(`logbook ${command.name}: ${message}\nusage: logbook ${command.usage}\n`);
      return 2;
    }
    stderr.write(error instanceof ConfigError ? `${message}\n` : `logbook ${command.name}: ${message}\n`);
    return 1;
  } finally {
    await db?.close();
  }
}
