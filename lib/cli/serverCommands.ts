import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { loadConfig } from '../config.js';
import { UsageError, type Command } from './command.js';

/** 0 asks the system for a free port (tests do). */
function parsePort(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new UsageError(`--port must be 0–65535 (got "${value}")`);
  return Number(value);
}

function parseWorkers(value: string | boolean | undefined): number {
  if (value === undefined) return availableParallelism();
  if (typeof value !== 'string' || !/^[1-9]\d{0,2}$/.test(value)) throw new UsageError(`--workers must be 1–999 (got "${String(value)}")`);
  return Number(value);
}

export const migrateCommand: Command = {
  name: 'migrate',
  usage: 'migrate [--json]',
  options: { json: { type: 'boolean' } },
  async run({ database, result }) {
    // database() already migrates on open; migrate() again reports nothing new, so ask it first.
    const db = await database();
    const { migrate } = await import('../db/migrate.js');
    const applied = [...db.migrationsApplied, ...(await migrate(db.pool))];
    result({ applied }, applied.length ? `applied ${applied.join(', ')}` : 'schema is up to date');
  },
};

export const serveCommand: Command = {
  name: 'serve',
  usage: 'serve [--port 8080] [--host 127.0.0.1] [--config FILE] [--workers N (default: number of CPUs)]',
  options: { port: { type: 'string' }, host: { type: 'string' }, config: { type: 'string' }, workers: { type: 'string' } },
  async run({ values, database, logger }) {
    const workers = parseWorkers(values.workers);
    const config = loadConfig(typeof values.config === 'string' ? values.config : undefined, process.env, { processes: workers });
    const port = parsePort(String(values.port ?? process.env.PORT ?? '8080'));
    const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
    const options = { config, logger, port, host, workers };
    const { serveAsWorker, serveInProcess, servePrimary, stopSignal } = await import('./serveProcesses.js');
    if (cluster.isWorker) return serveAsWorker(options);
    const db = await database({ statementTimeoutMs: config.statement_timeout_ms, poolMode: config.database.pool_mode, warmUp: true });
    if (workers === 1) await serveInProcess(options, db, stopSignal());
    else await servePrimary(options, db, workers);
  },
};
