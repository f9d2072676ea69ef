import { loadConfig } from '../config.js';
import { migrate } from '../db/migrate.js';
import { UsageError, type Command } from './command.js';

/** 0 asks the system for a free port (tests do). */
function parsePort(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new UsageError(`--port must be 0–65535 (got "${value}")`);
  return Number(value);
}

export const migrateCommand: Command = {
  name: 'migrate',
  usage: 'migrate [--json]',
  options: { json: { type: 'boolean' } },
  async run({ database, result }) {
    // database() already migrates on open; migrate() again reports nothing new, so ask it first.
    const db = await database();
    const applied = [...db.migrationsApplied, ...(await migrate(db.pool))];
    result({ applied }, applied.length ? `applied ${applied.join(', ')}` : 'schema is up to date');
  },
};

export const serveCommand: Command = {
  name: 'serve',
  usage: 'serve [--port 8080] [--host 127.0.0.1] [--config FILE]',
  options: { port: { type: 'string' }, host: { type: 'string' }, config: { type: 'string' } },
  async run({ values, database, logger }) {
    const config = loadConfig(typeof values.config === 'string' ? values.config : undefined);
    const port = parsePort(String(values.port ?? process.env.PORT ?? '8080'));
    const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
    const db = await database();
    // Loaded on demand: every other command starts faster without the whole HTTP app.
    const { startServer } = await import('../server.js');
    const server = await startServer({ config, db, logger, port, host });
    logger.info('listening', { url: server.url });
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        logger.info('shutting down', { signal });
        resolve();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await server.close();
  },
};
