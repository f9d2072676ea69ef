/**
 * Structured logging: one JSON object per line on stderr, so that stdout stays
 * free for command output (`--json`, ADIF export to stdout).
 */
export type LogFields = Record<string, unknown>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

type Level = 'info' | 'warn' | 'error';

function write(level: Level, base: LogFields, message: string, fields?: LogFields): void {
  const line = { time: new Date().toISOString(), level, msg: message, ...base, ...fields };
  process.stderr.write(JSON.stringify(line) + '\n');
}

export function createLogger(base: LogFields = {}, quiet = process.env.LOGBOOK_QUIET === '1'): Logger {
  const emit = (level: Level) => (message: string, fields?: LogFields) => {
    if (quiet && level === 'info') return;
    write(level, base, message, fields);
  };
  return {
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (fields) => createLogger({ ...base, ...fields }, quiet),
  };
}

export const log = createLogger();
