import type { Readable, Writable } from 'node:stream';
import type { ParseArgsConfig } from 'node:util';
import type { Database, OpenOptions } from '../db/database.js';

export type DatabaseOptions = Pick<OpenOptions, 'statementTimeoutMs' | 'poolMode' | 'warmUp'>;
import type { Logger } from '../log.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;
/** No option is declared `multiple`, so every value is a single string or flag. */
export type OptionValues = Record<string, string | boolean | undefined>;

/**
 * What a command reads and writes besides the database: the process's streams and environment,
 * or (tests running many commands in one process) streams and an environment of their own.
 */
export interface CliIo {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable;
  /**
   * DATABASE_URL and LOGBOOK_CONFIG as the command reads them. Without DATABASE_URL here,
   * openDatabase still reads the process's, and the embedded server's LOGBOOK_HOME is the
   * process's: a test of those spawns bin/logbook.js.
   */
  env: NodeJS.ProcessEnv;
}

export interface CommandContext {
  values: OptionValues;
  positionals: string[];
  logger: Logger;
  io: CliIo;
  /**
   * Opens the database (DATABASE_URL or the embedded one) once, migrated; options count on the
   * first call. Without a poolMode, the one of $LOGBOOK_CONFIG's `database.pool_mode`; without
   * warmUp, no warm-up (commands that run a few statements): serve, import and export ask for it.
   */
  database(options?: DatabaseOptions): Promise<Database>;
  /** Prints the command's result: one JSON object with --json, else the human line. */
  result(json: Record<string, unknown>, human: string): void;
}

export interface Command {
  name: string;
  usage: string;
  options: OptionSpec;
  positionals?: { min: number; max: number };
  run(context: CommandContext): Promise<void>;
}

/** A usage mistake: printed with the command's usage line, exit status 2. */
export class UsageError extends Error {}

export function requireString(values: OptionValues, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optionalString(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function requireId(values: OptionValues, name: string): number {
  return parseId(requireString(values, name), `--${name}`);
}

/** An optional whole number within [min, max]; undefined when the option is not given. */
export function optionalInteger(values: OptionValues, name: string, min: number, max: number): number | undefined {
  const value = optionalString(values, name);
  if (value === undefined) return undefined;
  const n = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`--${name} must be a whole number from ${min} to ${max} (got "${value}")`);
  return n;
}

export function parseId(value: string, what: string): number {
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new UsageError(`${what} must be a positive integer (got "${value}")`);
  return Number(value);
}
