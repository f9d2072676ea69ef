import { cpuSpent, type CpuMeter } from './cpuMeter.js';
import { send } from './httpClient.js';
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

/** The value of `--name value` on the command line, or null. */
export function stringOption(name: string): string | null {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? null : (process.argv[at + 1] ?? null);
}

/**
 * A migrated throw-away database on the server of DATABASE_URL, so that a benchmark's million
 * rows never touch a real log (`migrated: false`: empty, for a benchmark of the migrations).
 * `--reuse <name>` opens (and migrates) one kept by an earlier run's `--keep` instead, and keeps it.
 */
export async function scratchDatabase(label: string, { migrated = true } = {}): Promise<ScratchDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('set DATABASE_URL to a PostgreSQL server the benchmark may create a database on');
  const reused = stringOption('reuse');
  if (reused !== null && !/^logbook_bench_\w+$/.test(reused)) throw new Error('--reuse takes the name of a database a benchmark kept (logbook_bench_…)');
  const name = reused ?? `logbook_bench_${label}_${process.pid}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  if (reused === null) await admin.query(`CREATE DATABASE ${name}`);
  const database = await openDatabase({ logger: createLogger({}, true), url: url.toString(), migrate: migrated });
  return {
    ...database,
    name,
    async dispose() {
      await database.close();
      if (process.argv.includes('--keep') || reused !== null) console.log(`\nkept database ${name}`);
      else await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** The database a connection URL names. */
export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

/**
 * One GET over HTTP (lib/httpClient.ts, asking for gzip as fetch would), answered 200 with JSON:
 * its body and how long it took, in milliseconds, the client's decoding and JSON.parse included.
 */
export async function timedGet<T>(url: string, headers: Record<string, string>): Promise<{ body: T; ms: number }> {
  const begin = process.hrtime.bigint();
  const answer = await send(url, { headers, gzip: true });
  const body = JSON.parse(answer.body.toString('utf8')) as T;
  if (answer.status !== 200) throw new Error(`${url}: HTTP ${answer.status}`);
  return { body, ms: secondsSince(begin) * 1000 };
}

export interface ListLatency {
  meta: { count: number; total: number };
  p50: number;
  p99: number;
  /** The ceiling's latencies, taken between the list's. */
  ceiling: { p50: number; p99: number };
  /** CPU per list request, ms (the ceiling's excluded): the server's processes and the database's backends. */
  cpu: { server: number | null; database: number } | null;
}

/**
 * Latency of a list over HTTP, each request followed by one to `ceilingUrl` (the cheapest
 * request of its kind) so that the ceiling's p99 is this machine's at the same moments: a few
 * warm-up pairs, then `runs` timed pairs in sequence; p50/p99 in milliseconds and the last
 * answer's pagination meta.
 */
export async function measureList(
  url: string, ceilingUrl: string, headers: Record<string, string>, runs: number, warmups = 3, meter: CpuMeter | null = null,
): Promise<ListLatency> {
  for (let i = 0; i < warmups; i++) {
    await timedGet(url, headers);
    await timedGet(ceilingUrl, headers);
  }
  let meta = { count: 0, total: 0 };
  const lists: number[] = [];
  const ceilings: number[] = [];
  const cpu: { server: number | null; database: number } = { server: 0, database: 0 };
  for (let i = 0; i < runs; i++) {
    // Sampled around the list request alone, outside its timing.
    const before = meter?.sample();
    const list = await timedGet<{ meta: typeof meta }>(url, headers);
    const after = meter?.sample();
    if (before && after) {
      const spent = cpuSpent(before, after);
      cpu.server = spent.server === null || cpu.server === null ? null : cpu.server + spent.server;
      cpu.database += spent.database;
    }
    lists.push(list.ms);
    meta = list.body.meta;
    ceilings.push((await timedGet(ceilingUrl, headers)).ms);
  }
  lists.sort((a, b) => a - b);
  ceilings.sort((a, b) => a - b);
  return {
    meta,
    p50: percentile(lists, 50),
    p99: percentile(lists, 99),
    ceiling: { p50: percentile(ceilings, 50), p99: percentile(ceilings, 99) },
    cpu: meter === null ? null : { server: cpu.server === null ? null : cpu.server / runs, database: cpu.database / runs },
  };
}

/** A ListLatency as the benchmarks' table row: scenario, rows / total, p50, p99, the ceiling's p50 / p99, the p99's ratio to it, CPU per request. */
export function listLatencyRow(label: string, { meta, p50, p99, ceiling, cpu }: ListLatency): string {
  const cpuCells = cpu === null ? 'n/a' : `${cpu.server === null ? 'n/a' : cpu.server.toFixed(1)} / ${cpu.database.toFixed(1)}`;
  return `| ${label} | ${meta.count} / ${meta.total} | ${p50.toFixed(1)} | ${p99.toFixed(1)} | ${ceiling.p50.toFixed(1)} / ${ceiling.p99.toFixed(1)} | ${(p99 / ceiling.p99).toFixed(2)} | ${cpuCells} |`;
}

export const LIST_LATENCY_HEAD = '| scenario | rows / total | p50 ms | p99 ms | ceiling p50 / p99 ms | p99 / ceiling\'s | CPU ms per request: server / database |\n|---|---|---|---|---|---|---|';
