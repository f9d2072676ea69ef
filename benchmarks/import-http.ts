/**
 * The HTTP import users hit: an ADIF file streamed to `POST /api/v2/qso` of a real
 * `logbook serve` process, as the document itself (`?station_profile_id=`) and as the JSON
 * `import_type: "adif"` body loggers send, against `logbook import` of the same file and the raw
 * COPY ceiling, all measured in the same run on a scratch database. While each import runs, the
 * CLI's as well as the uploads, a `logbook serve` process answers another user's single creates,
 * one every 100 ms: their latency percentiles show what a big import costs everyone else, and
 * the CLI, which the uploads are measured against, pays for that load as they do (until
 * 2026-11-27 only the uploads ran beside it).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/import-http.ts [--qsos 1000000]
 *
 * Needs bin/logbook.js compiled (npm run build) and /usr/bin/time (GNU time). Peak RSS of the
 * server is the serve process's VmHWM (one fresh process per upload).
 */
import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createToken } from '../lib/auth/tokens.js';
import { SCOPES } from '../lib/auth/scopes.js';
import { copyCeiling, ensureFile, label, machine, newStation, report, runCli, writeCopyRows, dataDir } from './import.js';
import { numberOption, percentile, scratchDatabase, type ScratchDatabase } from './lib/scratch.js';
import { startServe, type ServeProcess } from './lib/serveProcess.js';
import { cpuSeconds, watchPostgresCpu } from './lib/cpuTime.js';
import { closeConnections, sendDiscarding } from './lib/httpClient.js';

/** The default max_body_bytes (256 MiB) refuses a 1M-QSO file (325 MB) and its JSON form. */
const SERVE_CONFIG = { max_body_bytes: 4 * 1024 ** 3 };

/**
 * The file's text as the content of a JSON string, written once next to it: the client then
 * streams a file in both modes, so the JSON upload's timing holds no escaping by the client
 * (a tenth of the run's CPU, on the two cores the server and PostgreSQL share).
 */
async function ensureJsonString(file: string): Promise<string> {
  const path = `${file}.json-string`;
  if (!existsSync(path)) await pipeline(createReadStream(file), jsonStringContent(), createWriteStream(path));
  return path;
}

/** Text as the content of a JSON string, escaped chunk by chunk (UTF-8 sequences kept whole). */
function jsonStringContent(): Transform {
  const decoder = new StringDecoder('utf8');
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      callback(null, JSON.stringify(decoder.write(chunk)).slice(1, -1));
    },
    flush(callback) {
      callback(null, JSON.stringify(decoder.end()).slice(1, -1));
    },
  });
}

/** POSTs `body` (streamed) and resolves with the answer's status and parsed body. */
function upload(url: string, token: string, contentType: string, head: string, body: Readable, tail: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType, 'transfer-encoding': 'chunked' } });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    if (head) req.write(head);
    body.on('error', reject);
    body.on('end', () => req.end(tail));
    body.pipe(req, { end: false });
  });
}

/** Single QSO creates by another user every 100 ms until stopped; their latencies in ms. */
function singleCreates(serverUrl: string, token: string, stationId: number): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    for (let n = 0; running; n++) {
      const started = process.hrtime.bigint();
      const status = await sendDiscarding(`${serverUrl}/api/v2/qso`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ station_profile_id: stationId, call: `DL${n}LAT`, band: '20m', mode: 'CW', qso_date: '2024-01-01', time_on: '1200' }),
      });
      if (status !== 201) throw new Error(`single create answered ${status}`);
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies.sort((a, b) => a - b);
    },
  };
}

async function tokenFor(db: ScratchDatabase, stationId: number): Promise<string> {
  const { rows } = await db.pool.query<{ user_id: number }>('SELECT user_id FROM stations WHERE id = $1', [stationId]);
  const userId = rows[0]!.user_id;
  return (await createToken(db.pool, { userId, createdBy: userId, name: 'bench', scopes: [...SCOPES], expiresAt: null })).token;
}

type Mode = 'document' | 'json';

/** The other user's single creates during an import: latencies, as a report line. */
function bystanderLine(latencies: number[]): string {
  return `  another user's single creates meanwhile: ${latencies.length}, p50 ${percentile(latencies, 50).toFixed(0)} ms, ` +
    `p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms`;
}

/** A serve process and, while `work` runs, another user's single creates on it (one every 100 ms). */
async function besideCreates<T>(db: ScratchDatabase, label: string, work: (server: ServeProcess) => Promise<T>): Promise<{ result: T; latencies: number[] }> {
  const other = await newStation(db, `DL0L${label}`);
  const otherToken = await tokenFor(db, other);
  const server = await startServe(db.url, { config: SERVE_CONFIG });
  try {
    const creates = singleCreates(server.url, otherToken, other);
    let result: T;
    try {
      result = await work(server);
    } catch (error) {
      await creates.stop();
      throw error;
    }
    return { result, latencies: await creates.stop() };
  } finally {
    closeConnections();
    await server.stop();
  }
}

async function cliImport(db: ScratchDatabase, file: string, count: number, ceiling: number): Promise<{ rate: number; cpu: string }> {
  const cliStation = await newStation(db, 'DL0CLI');
  await db.pool.query('CHECKPOINT');
  const { result: { cli, cpu }, latencies } = await besideCreates(db, 'C', async () => {
    const postgres = watchPostgresCpu();
    const cli = await runCli(['import', file, '--station', String(cliStation), '--json'], db.url);
    return { cli, cpu: `process ${cli.cpuSeconds.toFixed(1)}, PostgreSQL ${postgres.stop().toFixed(1)}` };
  });
  const imported = (JSON.parse(cli.stdout) as { imported: number }).imported;
  const rate = report(`logbook import, ${label(count)} QSOs`, imported, cli.seconds, statSync(file).size, `, peak RSS ${cli.peakRssMb.toFixed(0)} MB`);
  console.log(`  ratio to the ceiling: ${((rate / ceiling) * 100).toFixed(0)} %; CPU s: ${cpu} (PostgreSQL: every backend, the other user's creates' included)`);
  console.log(bystanderLine(latencies));
  return { rate, cpu };
}

async function httpImport(db: ScratchDatabase, file: string, mode: Mode, ceiling: number, cli: { rate: number; cpu: string }): Promise<void> {
  const station = await newStation(db, `DL0H${mode === 'document' ? 'D' : 'J'}`);
  const token = await tokenFor(db, station);
  const body = createReadStream(mode === 'document' ? file : await ensureJsonString(file), { highWaterMark: 256 * 1024 });
  await db.pool.query('CHECKPOINT');
  const { result, latencies } = await besideCreates(db, mode === 'document' ? 'D' : 'J', async (server) => {
    const idleRss = server.peakRssMb();
    const cpuBefore = { ...cpuSeconds(server.pid), client: process.cpuUsage() };
    const started = process.hrtime.bigint();
    const answer = mode === 'document'
      ? await upload(`${server.url}/api/v2/qso?station_profile_id=${station}`, token, 'application/octet-stream', '', body, '')
      : await upload(`${server.url}/api/v2/qso`, token, 'application/json', `{"station_profile_id":${station},"import_type":"adif","dryrun":false,"adif":"`, body, '"}');
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpuAfter = cpuSeconds(server.pid);
    return { answer, seconds, idleRss, peakRss: server.peakRssMb(), cpu: { server: cpuAfter.server - cpuBefore.server, postgres: cpuAfter.postgres - cpuBefore.postgres }, client: process.cpuUsage(cpuBefore.client) };
  });
  const { answer, seconds, idleRss, peakRss, cpu, client } = result;
  if (answer.status !== 201) throw new Error(`upload answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  const imported = (answer.body as { data: { imported: number } }).data.imported;
  const what = mode === 'document' ? 'HTTP: ADIF as the body' : 'HTTP: JSON import_type adif';
  const rate = report(`${what}, ${label(imported)} QSOs`, imported, seconds, statSync(file).size, `, server peak RSS ${peakRss.toFixed(0)} MB (idle ${idleRss.toFixed(0)} MB)`);
  console.log(`  ratio to the ceiling: ${((rate / ceiling) * 100).toFixed(0)} %; to logbook import: ${((rate / cli.rate) * 100).toFixed(0)} %`);
  console.log(
    `  CPU s: server ${cpu.server.toFixed(1)}, PostgreSQL ${cpu.postgres.toFixed(1)}, ` +
      `this client (upload and the other user's creates) ${((client.user + client.system) / 1e6).toFixed(1)}; logbook import: ${cli.cpu}`,
  );
  console.log(bystanderLine(latencies));
}

/**
 * Every import starts from an empty table, as the ceiling's COPY does: until 2026-11-27 each
 * upload went into the table the earlier imports had filled (1M, then 2M rows: indexes past
 * shared_buffers), and its ratio to the CLI measured that, not the HTTP layer.
 */
async function emptyQsoTable(db: ScratchDatabase): Promise<void> {
  await db.pool.query('TRUNCATE qso CASCADE');
  await db.pool.query('VACUUM ANALYZE qso');
}

async function main(): Promise<void> {
  console.log(machine());
  const count = numberOption('qsos', 1_000_000);
  const file = await ensureFile(count);
  const db = await scratchDatabase('http');
  try {
    const ceilingStation = await newStation(db, 'DL0CEIL');
    const copyPath = join(dataDir, `qsos-${label(count)}.copy`);
    const rows = await writeCopyRows(db.pool, file, ceilingStation, copyPath);
    await db.pool.query('CHECKPOINT');
    const ceiling = report('ceiling: raw COPY into qso (all indexes)', rows, await copyCeiling(db.pool, copyPath, ceilingStation), statSync(copyPath).size);
    await emptyQsoTable(db);
    const cli = await cliImport(db, file, count, ceiling);

    for (const mode of ['document', 'json'] as const) {
      await emptyQsoTable(db);
      await httpImport(db, file, mode, ceiling, cli);
    }
    console.log(machine());
  } finally {
    await db.dispose();
  }
}

await main();
