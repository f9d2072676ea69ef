import pg from 'pg';
import { openDatabase, type Database } from '../../lib/db/database.js';
import { createLogger } from '../../lib/log.js';

/** `--name value` from the command line as a number, or the fallback. */
export function numberOption(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

/** The p-th percentile of an ascending list (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Seconds since a process.hrtime.bigint() reading. */
export const secondsSince = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;

export interface ScratchDatabase extends Database {
  name: string;
  /** Closes the pool and drops the database, unless --keep was given. */
  dispose(): Promise<void>;
}

/**
 * A migrated throw-away database on the server of DATABASE_URL, so that a benchmark's million
 * rows never touch a real log.
 */
export async function scratchDatabase(label: string): Promise<ScratchDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('set DATABASE_URL to a PostgreSQL server the benchmark may create a database on');
  const name = `logbook_bench_${label}_${process.pid}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const database = await openDatabase({ logger: createLogger({}, true), url: url.toString() });
  return {
    ...database,
    name,
    async dispose() {
      await database.close();
      if (process.argv.includes('--keep')) console.log(`\nkept database ${name}`);
      else await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export interface LatencyResult {
  meta: { count: number; total: number };
  p50: number;
  p99: number;
}

/**
 * Latency of one list request over HTTP: a few warm-up calls, then `runs` timed ones in
 * sequence; p50/p99 in milliseconds and the last answer's pagination meta.
 */
export async function measureList(url: string, headers: Record<string, string>, runs: number, warmups = 3): Promise<LatencyResult> {
  const get = async () => {
    const response = await fetch(url, { headers });
    const body = (await response.json()) as { meta: { count: number; total: number } };
    if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status}`);
    return body.meta;
  };
  let meta = await get();
  for (let i = 1; i < warmups; i++) meta = await get();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const begin = process.hrtime.bigint();
    await get();
    times.push(secondsSince(begin) * 1000);
  }
  times.sort((a, b) => a - b);
  return { meta, p50: percentile(times, 50), p99: percentile(times, 99) };
}
