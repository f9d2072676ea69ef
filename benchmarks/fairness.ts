/**
 * Issue 47's attacks on one user against another user's everyday work. Against `logbook serve`
 * (needs `npm run build` and the tests compiled, `npx tsc -p tsconfig.test.json`, in the tree
 * served), each attack of the issue's defects 1–4 is run by Alice for --seconds while Bob's
 * 20-QSO import, list (`per_page=20`) and change-feed poll are timed one after another, each
 * capped at 30 s; the same loop alone first is the ceiling. A fresh server per attack, so that
 * work an attack leaves behind does not weigh on the next:
 *
 * - `multipart bomb`: two at a time, `gzip("--XyZbOuNdArY" + "A"×32 MiB)` as a form;
 * - `sniff bomb + fields`: two gzip bodies of 256 MiB of spaces without a Content-Type and two
 *   gzip forms of 4,000 text fields of 16 KiB;
 * - `4 trickling uploads`: synchronous documents sending a record every 2 s;
 * - `4 slow v1 readers`: `get_contacts_adif` with a read-only key, read at 2 KB/s;
 * - `34 slow page readers`: `GET /api/v2/qso?per_page=5000` read at 2 KB/s;
 * - `job behind a lock`: Alice's location held (as her own long import would), two jobs of hers
 *   queued; Bob's job (5 QSOs, `Prefer: respond-async`) timed from upload to done as well.
 *
 * Printed: Bob's p50/p99/max per request kind and attack, the p99's ratio to the ceiling's, and
 * the serving process's peak RSS per attack. Every attacker is renewed when the server ends it (a refusal, a cut-off), as an attacker would.
 * `--tree` serves another checkout (e.g. a worktree of the commit before the hardening) on a
 * database its own migrations create and its own test fixtures fill.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/fairness.ts \
 *     [--tree /work/wt/fair-before] [--seconds 10] [--qsos 10000] [--only "4 slow v1 readers"]
 */
import { connect, type Socket } from 'node:net';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { execSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGzip, gzipSync } from 'node:zlib';
import pg from 'pg';
import { numberOption, percentile, stringOption } from './lib/scratch.js';
import { startServe, type ServeProcess } from './lib/serveProcess.js';

const SECONDS = numberOption('seconds', 10);
const QSOS = numberOption('qsos', 10_000);
const TREE = resolve(stringOption('tree') ?? resolve(import.meta.dirname, '..'));
const ONLY = stringOption('only');
const CAP_MS = 30_000;
const IMPORT_LOCK_CLASS = 0x51_0a;

interface Operator { userId: number; stationId: number; token: string }
type Fixtures = { createOperator(db: pg.Pool, options: { callsign: string }): Promise<Operator> };
type V1Helpers = { v1Key(db: pg.Pool, userId: number, rights: 'r' | 'rw'): Promise<string> };
const { createOperator } = (await import(`${TREE}/dist/test/helpers/fixtures.js`)) as Fixtures;
const { v1Key } = (await import(`${TREE}/dist/test/v1/helpers.js`)) as V1Helpers;
const commit = execSync('git rev-parse --short HEAD', { cwd: TREE }).toString().trim();

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('set DATABASE_URL');
const dbName = `logbook_bench_fairness_${process.pid}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();
const serve = () => startServe(dbUrl, { bin: `${TREE}/bin/logbook.js` });

// The tree's own migrations make the schema; its fixtures make the users.
let server: ServeProcess = await serve();
const db = new pg.Pool({ connectionString: dbUrl, max: 4 });
const alice = await createOperator(db, { callsign: 'DL1ALI' });
const bob = await createOperator(db, { callsign: 'DL2BOB' });
const aliceKey = await v1Key(db, alice.userId, 'r');

const field = (name: string, value: string) => `<${name}:${Buffer.byteLength(value)}>${value}`;
function adifRecord(call: string, i: number): string {
  const day = String(1 + (Math.floor(i / 1440) % 28)).padStart(2, '0');
  const minute = i % 1440;
  const time = `${String(Math.floor(minute / 60)).padStart(2, '0')}${String(minute % 60).padStart(2, '0')}`;
  return `${field('CALL', call)} ${field('QSO_DATE', `2023${String(1 + (Math.floor(i / 40320) % 12)).padStart(2, '0')}${day}`)} ${field('TIME_ON', time)} ${field('BAND', '20m')} ${field('MODE', 'CW')} ${field('FREQ', '14.02')}<EOR>\n`;
}
const adif = (prefix: string, count: number, start = 0) =>
  `bench <ADIF_VER:5>3.1.4 <EOH>\n${Array.from({ length: count }, (_, i) => adifRecord(`${prefix}${start + i}X`, start + i)).join('')}`;

async function call(path: string, init: RequestInit & { token?: string } = {}, cap = CAP_MS): Promise<number> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  const res = await fetch(server.url + path, { ...init, headers, signal: AbortSignal.timeout(cap) });
  await res.arrayBuffer();
  return res.status;
}

for (const [who, count] of [[alice, QSOS], [bob, 2000]] as const) {
  const status = await call(`/api/v2/qso?station_profile_id=${who.stationId}`, { method: 'POST', token: who.token, body: adif(who === alice ? 'K' : 'W', count), headers: { 'content-type': 'text/plain' } }, 300_000);
  if (status !== 201) throw new Error(`seeding: HTTP ${status}`);
}
await server.stop();

/** Bob's three requests in turn until `until`: latencies (ms) per kind; a request beyond CAP_MS counts as CAP_MS. */
let round = 0;
async function victim(until: number, job: boolean): Promise<Record<string, number[]>> {
  const times: Record<string, number[]> = { import: [], list: [], feed: [], ...(job ? { job: [] } : {}) };
  const timed = async (kind: string, run: () => Promise<unknown>) => {
    const started = performance.now();
    await run().catch(() => undefined);
    times[kind]!.push(Math.min(CAP_MS, performance.now() - started));
  };
  while (Date.now() < until) {
    round++;
    const qsos = Array.from({ length: 20 }, (_, i) => ({ call: `N${round}B${i}`, band: '40m', mode: 'SSB', qso_date: '2024-06-01', time_on: `12${String(i).padStart(2, '0')}00` }));
    await timed('import', () => call('/api/v2/qso', { method: 'POST', token: bob.token, body: JSON.stringify({ station_profile_id: bob.stationId, qsos }), headers: { 'content-type': 'application/json' } }));
    await timed('list', () => call('/api/v2/qso?per_page=20', { token: bob.token }));
    await timed('feed', () => call('/api/v2/qso/changes', { token: bob.token }));
    if (job) await timed('job', () => bobsJob(round));
  }
  return times;
}

/** Bob's small background import, from upload to done. */
async function bobsJob(n: number): Promise<void> {
  const res = await fetch(`${server.url}/api/v2/qso?station_profile_id=${bob.stationId}`, {
    method: 'POST', body: adif(`J${n}Y`, 5), headers: { authorization: `Bearer ${bob.token}`, 'content-type': 'text/plain', prefer: 'respond-async' }, signal: AbortSignal.timeout(CAP_MS),
  });
  await res.arrayBuffer();
  if (res.status !== 202) throw new Error(`job: HTTP ${res.status}`);
  const location = res.headers.get('location')!;
  const deadline = performance.now() + CAP_MS;
  while (performance.now() < deadline) {
    const poll = await fetch(server.url + location, { headers: { authorization: `Bearer ${bob.token}` } });
    const state = ((await poll.json()) as { data: { state: string } }).data.state;
    if (state !== 'queued' && state !== 'running') return;
    await sleep(50);
  }
}

/** Keeps `count` attackers made by `start` going until stopped, renewing each one the server ends (after a second). */
function crowd(count: number, start: () => Socket): { stop(): void } {
  let stopped = false;
  const sockets = new Set<Socket>();
  const open = () => {
    if (stopped) return;
    const socket = start();
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      sockets.delete(socket);
      if (!stopped) setTimeout(open, 1000).unref();
    });
  };
  for (let i = 0; i < count; i++) open();
  return { stop() { stopped = true; for (const socket of sockets) socket.destroy(); } };
}

function rawRequest(head: string, headers: Record<string, string>, body?: Buffer | string): Socket {
  const url = new URL(server.url);
  const socket = connect(Number(url.port), url.hostname);
  const lines = Object.entries({ Host: url.host, Connection: 'close', ...headers }).map(([name, value]) => `${name}: ${value}`);
  socket.write(`${head} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
  if (body !== undefined) socket.write(body);
  return socket;
}

/** An answer read at `rate` bytes a second: each chunk, then a pause as long as it should have taken. */
function readSlowly(socket: Socket, rate = 2048): Socket {
  socket.on('data', (chunk: Buffer) => {
    socket.pause();
    setTimeout(() => socket.resume(), (chunk.length / rate) * 1000).unref();
  });
  return socket;
}

async function gzipOf(parts: () => Iterable<Buffer>): Promise<Buffer> {
  const gzip = createGzip();
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise((ok) => gzip.on('end', ok));
  for (const part of parts()) if (!gzip.write(part)) await new Promise((ok) => gzip.once('drain', ok));
  gzip.end();
  await done;
  return Buffer.concat(out);
}

const boundary = 'XyZbOuNdArY';
const multipartBomb = gzipSync(Buffer.concat([Buffer.from(`--${boundary}`), Buffer.alloc(32 * 1024 * 1024, 'A')]));
const spaces = Buffer.alloc(1024 * 1024, ' ');
const sniffBomb = await gzipOf(function* () { for (let i = 0; i < 257; i++) yield spaces; });
const fieldValue = 'x'.repeat(16 * 1024);
const fieldsForm = await gzipOf(function* () {
  for (let i = 0; i < 4000; i++) yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n${fieldValue}\r\n`);
  yield Buffer.from(`--${boundary}--\r\n`);
});
const uploadPath = `/api/v2/qso?station_profile_id=${alice.stationId}`;
const aliceAuth = { Authorization: `Bearer ${alice.token}` };
const gzipForm = (body: Buffer) => rawRequest(`POST ${uploadPath}`, { ...aliceAuth, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Encoding': 'gzip', 'Content-Length': String(body.length) }, body);

interface Attack { name: string; start(): Promise<{ stop(): Promise<void> }> }
const crowdAttack = (name: string, ...groups: Array<[number, () => Socket]>): Attack => ({
  name,
  async start() {
    const running = groups.map(([count, start]) => crowd(count, start));
    return { async stop() { running.forEach((each) => each.stop()); } };
  },
});

const attacks: Attack[] = [
  crowdAttack('multipart bomb', [2, () => gzipForm(multipartBomb)]),
  crowdAttack('sniff bomb + fields', [2, () => rawRequest(`POST ${uploadPath}`, { ...aliceAuth, 'Content-Encoding': 'gzip', 'Content-Length': String(sniffBomb.length) }, sniffBomb)], [2, () => gzipForm(fieldsForm)]),
  crowdAttack('4 trickling uploads', [4, () => {
    const socket = rawRequest(`POST ${uploadPath}`, { ...aliceAuth, 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
    const chunk = (text: string) => socket.writable && socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
    chunk('bench <ADIF_VER:5>3.1.4 <EOH>\n');
    let i = 0;
    const timer = setInterval(() => chunk(adifRecord(`T${process.hrtime.bigint()}Z`, i++)), 2000);
    socket.once('close', () => clearInterval(timer));
    return socket;
  }]),
  crowdAttack('4 slow v1 readers', [4, () => {
    const body = JSON.stringify({ key: aliceKey, station_id: alice.stationId, fetchfromid: 0 });
    return readSlowly(rawRequest('POST /api/get_contacts_adif', { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }, body));
  }]),
  crowdAttack('34 slow page readers', [34, () => readSlowly(rawRequest('GET /api/v2/qso?per_page=5000', aliceAuth))]),
  {
    name: 'job behind a lock',
    async start() {
      const holder = await db.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1, $2)', [IMPORT_LOCK_CLASS, alice.stationId]);
      for (let i = 0; i < 2; i++) {
        await call(uploadPath, { method: 'POST', token: alice.token, body: adif(`L${i}Q`, 5), headers: { 'content-type': 'text/plain', prefer: 'respond-async' } });
      }
      return { async stop() { await holder.query('ROLLBACK'); holder.release(); } };
    },
  },
];

let ceiling: Record<string, number[]> = {};
/** Peak RSS of the serving process by attack (a fresh process each). */
const peaks: string[] = [];
const line = (attack: string, kind: string, times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  const base = ceiling[kind] ? percentile([...ceiling[kind]!].sort((a, b) => a - b), 99) : NaN;
  const p99 = percentile(sorted, 99);
  return `| ${attack} | ${kind} | ${sorted.length} | ${percentile(sorted, 50).toFixed(0)} | ${p99.toFixed(0)} | ${sorted[sorted.length - 1]!.toFixed(0)} | ${(p99 / base).toFixed(1)} |`;
};
const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');

console.log(`tree ${TREE} (${commit}); ${QSOS} QSOs of Alice's, 2000 of Bob's; ${SECONDS} s an attack; load at start ${load()}`);
console.log('\n| attack | Bob\'s | n | p50 ms | p99 ms | max ms | p99 / ceiling |\n|---|---|---|---|---|---|---|');
for (const attack of [null, ...attacks]) {
  if (attack && ONLY && attack.name !== ONLY) continue;
  server = await serve();
  await victim(Date.now() + 1000, attack?.name === 'job behind a lock'); // warm: plans, backends
  const running = attack ? await attack.start() : null;
  if (running) await sleep(1000);
  const times = await victim(Date.now() + SECONDS * 1000, attack?.name === 'job behind a lock' || attack === null);
  await running?.stop();
  peaks.push(`${attack?.name ?? 'none'} ${server.peakRssMb().toFixed(0)}`);
  if (attack === null) ceiling = times;
  for (const [kind, list] of Object.entries(times)) {
    console.log(line(attack?.name ?? 'none (ceiling)', kind, list));
  }
  await server.stop();
}
console.log(`\npeak RSS (MiB) of the serving process: ${peaks.join(', ')}\nload at end ${load()}`);
await db.end();
await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
await admin.end();
