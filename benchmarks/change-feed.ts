/**
 * The change feed, GET /api/v2/qso/changes (docs/change-feed.md), on a generated log: 1M QSOs of
 * the token's owner in one station location, written by 10 transactions (as 10 imports would),
 * and 100k QSOs of another user interleaved with them in the table. Built with INSERT … SELECT
 * generate_series in a throw-away database (dropped at the end unless --keep). The server runs
 * in a child process of its own (so that its peak RSS is its own), over HTTP on loopback.
 *
 * 1. Following the feed from the start (no cursor, per_page 5000) until has_more is false, the
 *    client parsing every page's JSON: QSOs/s, MB/s, page latency p50/p90/p99, the server's peak
 *    RSS; again asking for the next page as soon as a page's head names it (its Link header)
 *    while its body is read; then both with omit_empty=true (only the QSOs' set fields). Ceiling in the same run: the same rows read by keyset pages of 5000 through pg (a plain
 *    SELECT of the page's columns ordered by (txid, id)), rows parsed by pg into objects.
 * 2. Single pages of 5000: the first, a middle one, the last one, the page of a client that is up
 *    to date; the first, middle and last with omit_empty=true; then, after 5,000 deletions and 5,000 edits (two transactions), the page of
 *    tombstones, the page of edits, and the middle page again. Sequential requests, p50/p90/p99
 *    over --runs after 3 warm-ups; beside each, the plain keyset SELECT of 5000 rows at the same
 *    place through pg, and the page statement's own execution time (EXPLAIN ANALYZE; its plans
 *    printed with --explain).
 * 3. A client up to date polling: the CPU of the server and of PostgreSQL per poll, over 1,000
 *    polls one after the other.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/change-feed.ts \
 *     [--qsos 1000000] [--runs 50] [--gzip] [--explain] [--profile] [--keep]
 *
 * Answers are asked uncompressed (Accept-Encoding: identity) unless --gzip is given.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConfig } from '../lib/config.js';
import { createLogger } from '../lib/log.js';
import { openDatabase } from '../lib/db/database.js';
import { WORKER_V8_FLAGS } from '../lib/cli/serveProcesses.js';
import { startServer } from '../lib/server.js';
import { createUser } from '../lib/accounts/users.js';
import { createStation } from '../lib/accounts/stations.js';
import { createToken } from '../lib/auth/tokens.js';
import { inQsoTransaction } from '../lib/qso/writeLock.js';
import { CursorCodec, type ChangeCursor } from '../lib/qso/changeCursor.js';
import { serverKey } from '../lib/db/serverKeys.js';
import { changeBounds } from '../lib/qso/changeBounds.js';
import { changePageStatements } from '../lib/qso/changeFeed.js';
import { qsoSelectList } from '../lib/qso/present.js';
import { databaseName, numberOption, percentile, scratchDatabase, secondsSince } from './lib/scratch.js';
import { CpuMeter, cpuSpent } from './lib/cpuMeter.js';

const PER_PAGE = 5000;
/** Polls of a client up to date whose CPU is measured. */
const POLLS = 1000;

// --- child mode: the server alone -----------------------------------------------------------
if (process.argv.includes('--serve')) {
  const logger = createLogger({}, true);
  const database = await openDatabase({ logger, url: process.env.DATABASE_URL!, migrate: false });
  const server = await startServer({ config: buildConfig({}), db: database, logger, port: 0, host: '127.0.0.1' });
  console.log(server.url);
  process.stdin.resume();
  process.stdin.on('end', () => {
    void server.close().then(() => database.close()).then(() => process.exit(0)); // exit writes --cpu-prof
  });
} else {
  await main();
}

async function main(): Promise<void> {
  const QSOS = numberOption('qsos', 1_000_000);
  const OTHER = Math.round(QSOS / 10);
  const BATCHES = 10;
  const RUNS = numberOption('runs', 50);
  const EXPLAIN = process.argv.includes('--explain');
  const GZIP = process.argv.includes('--gzip');
  const machine = () =>
    `nproc ${cpus().length}, Node ${process.version}, ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;
  const ms = (n: number) => n.toFixed(1);

  console.log(`${machine()}; answers ${GZIP ? 'gzip' : 'uncompressed'}`);
  const database = await scratchDatabase('feed');
  const db = database.pool;
  let server: ChildProcess | undefined;
  try {
    // --- the log ------------------------------------------------------------------------------
    const ownerId = await createUser(db, { username: 'owner', callsign: 'DL1OWN' });
    const home = await createStation(db, { userId: ownerId, name: 'Home', callsign: 'DL1OWN', gridsquare: 'JO62QM' });
    const otherId = await createUser(db, { username: 'other', callsign: 'DL2OTH' });
    const otherStation = await createStation(db, { userId: otherId, name: 'Home', callsign: 'DL2OTH', gridsquare: 'JO40' });
    const { token } = await createToken(db, { userId: ownerId, createdBy: ownerId, name: 'bench', scopes: ['qso:read'], expiresAt: null });

    let start = process.hrtime.bigint();
    // One QSO of the owner every 2.5 minutes from 2015 on, every tenth followed by one of the
    // other user; 20,000 calls, 11 bands, five modes, 15 % LoTW- and 10 % eQSL-confirmed.
    const perBatch = Math.ceil(QSOS / BATCHES);
    for (let b = 0; b < BATCHES; b++) {
      const from = b * perBatch + 1;
      const to = Math.min(QSOS, (b + 1) * perBatch);
      await inQsoTransaction(db, [ownerId, otherId], async (client) => {
        await client.query('SELECT setseed($1)', [b / BATCHES]);
        await client.query(
          `INSERT INTO qso (station_id, call, time_on, time_off, band, mode, submode, freq, rst_sent, rst_rcvd, gridsquare,
                            operator, station_callsign, lotw_qsl_rcvd, eqsl_qsl_rcvd, qsl_rcvd, comment)
           SELECT CASE WHEN owner THEN $1::int ELSE $2::int END,
                  'K' || floor(random() * 20000)::int || 'X', time_on, time_on + interval '1 minute',
                  band, mode, CASE mode WHEN 'SSB' THEN 'USB' WHEN 'MFSK' THEN 'FT4' END,
                  14074000, '59', '59', 'JO62',
                  CASE WHEN owner THEN 'DL1OWN' ELSE 'DL2OTH' END, CASE WHEN owner THEN 'DL1OWN' ELSE 'DL2OTH' END,
                  CASE WHEN random() < 0.15 THEN 'Y' ELSE 'N' END, CASE WHEN random() < 0.10 THEN 'Y' ELSE 'N' END, 'N',
                  CASE WHEN random() < 0.2 THEN 'tnx fer QSO 73' END
             FROM (SELECT owner, timestamp '2015-01-01' + g * interval '150 seconds' AS time_on,
                          (ARRAY['160m','80m','40m','30m','20m','17m','15m','12m','10m','6m','2m'])[1 + floor(random() * 11)::int] AS band,
                          (ARRAY['CW','SSB','FT8','MFSK','RTTY'])[1 + floor(random() * 5)::int] AS mode
                     FROM generate_series($3::int, $4::int) g CROSS JOIN (VALUES (true), (false)) AS o(owner)
                    WHERE owner OR g % 10 = 0
                    ORDER BY g) raw`,
          [home, otherStation, from, to],
        );
      });
    }
    await db.query('VACUUM ANALYZE qso');
    const { rows: [counted] } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [home]);
    console.log(`generated ${counted!.n} QSOs of the owner + ${OTHER} of another user in ${BATCHES} transactions: ${secondsSince(start).toFixed(0)} s`);

    // --- the server, in a process of its own --------------------------------------------------
    // --profile: a CPU profile of the server process (written when it exits) to benchmarks/data/.
    const profile = process.argv.includes('--profile') ? ['--cpu-prof', '--cpu-prof-dir', join(import.meta.dirname, 'data')] : [];
    // With the V8 flags `logbook serve` gives its workers, as `npm start` runs the API.
    server = spawn(process.execPath, [...profile, ...WORKER_V8_FLAGS, '--import', 'tsx', fileURLToPath(import.meta.url), '--serve'], {
      env: { ...process.env, DATABASE_URL: database.url },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const [line] = (await once(createInterface({ input: server.stdout! }), 'line')) as [string];
    const base = line.trim();
    const serverPid = server.pid!;
    const memory = (field: 'VmRSS' | 'VmHWM') => {
      const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${serverPid}/status`, 'utf8'));
      return Number(match![1]) / 1024;
    };
    // fetch asks for gzip unless told otherwise; a sync client on a fast link need not (curl does not).
    const headers = { authorization: `Bearer ${token}`, 'accept-encoding': GZIP ? 'gzip' : 'identity' };

    interface Page { data: Array<{ change: string; id: number }>; meta: { cursor: string; has_more: boolean } }
    // Where a page's time goes, as the client sees it: until the answer's head, until its last
    // byte, and the client's own JSON.parse.
    const phases = { head: [] as number[], body: [] as number[], parse: [] as number[] };
    type Requested = { url: string; response: Promise<Response>; begin: number };
    const request = (url: string): Requested => ({ url, begin: performance.now(), response: fetch(url, { headers }) });
    const pageUrl = (cursor: string | null, extra: string) =>
      `${base}/api/v2/qso/changes?per_page=${PER_PAGE}${extra}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const getPage = (cursor: string | null, extra = '') => readPage(request(pageUrl(cursor, extra)));
    /** A page; with `pipelined`, the next page (the answer's Link) is asked for as soon as this one's head is in. */
    const readPage = async ({ url, response: requested, begin }: Requested, pipelined = false): Promise<{ page: Page; bytes: number; next: Requested | null }> => {
      const response = await requested;
      const head = performance.now();
      const link = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '');
      const next = pipelined && link ? request(new URL(link[1]!, base).toString()) : null;
      const body = await response.arrayBuffer();
      const end = performance.now();
      if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status} ${Buffer.from(body).toString()}`);
      const page = JSON.parse(Buffer.from(body).toString('utf8')) as Page;
      phases.head.push(head - begin);
      phases.body.push(end - head);
      phases.parse.push(performance.now() - end);
      if (page.meta.has_more !== (link !== null)) throw new Error(`${url}: has_more ${page.meta.has_more} but Link ${response.headers.get('link')}`);
      return { page, bytes: body.byteLength, next };
    };
    const stats = (times: number[]) => {
      const sorted = [...times].sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99) };
    };

    // The plain SELECT through pg: the page's columns, keyset-paged in the feed's order.
    const plainPage = async (txid: string, id: number) => {
      const { rows } = await db.query<{ txid: string; id: number }>(
        `SELECT q.txid::text AS txid, ${qsoSelectList('q')} FROM qso q WHERE q.station_id = $1 AND (q.txid, q.id) > ($2::xid8, $3::bigint)
          ORDER BY q.txid, q.id LIMIT ${PER_PAGE}`,
        [home, txid, id],
      );
      return rows;
    };

    // --- 1. following the feed from the start --------------------------------------------------
    const idleRss = memory('VmRSS');
    await getPage(null); // one warm-up request (JIT, connections)
    const followFeed = async (extra: string, pipelined = false) => {
      for (const phase of Object.values(phases)) phase.length = 0;
      const cursors: string[] = [];
      const pageTimes: number[] = [];
      let changes = 0;
      let bytes = 0;
      let cursor: string | null = null;
      let prefetched: Requested | null = null;
      const begin = process.hrtime.bigint();
      for (;;) {
        const asked: Requested = prefetched ?? request(pageUrl(cursor, extra));
        const { page, bytes: n, next } = await readPage(asked, pipelined);
        pageTimes.push(performance.now() - asked.begin);
        changes += page.data.length;
        bytes += n;
        cursors.push(cursor ?? '');
        cursor = page.meta.cursor;
        prefetched = next;
        if (!page.meta.has_more) break;
      }
      const phaseP50 = Object.fromEntries(Object.entries(phases).map(([name, times]) => [name, ms(stats(times).p50)]));
      return { cursors, changes, bytes, seconds: secondsSince(begin), times: stats(pageTimes), upToDate: cursor!, phaseP50 };
    };
    const full = await followFeed('');
    const fullOverlapped = await followFeed('', true);
    const lean = await followFeed('&omit_empty=true');
    const overlapped = await followFeed('&omit_empty=true', true);
    const { cursors, upToDate } = full;
    const peakRss = memory('VmHWM');

    start = process.hrtime.bigint();
    let plainRows = 0;
    for (let at = { txid: '0', id: 0 }; ;) {
      const rows = await plainPage(at.txid, at.id);
      plainRows += rows.length;
      if (rows.length < PER_PAGE) break;
      at = { txid: rows.at(-1)!.txid, id: rows.at(-1)!.id };
    }
    const plainSeconds = secondsSince(start);
    const plainRate = plainRows / plainSeconds;
    console.log(`\n${machine()}`);
    const follows = [
      ['', full], [', the next page asked for at the Link', fullOverlapped],
      [', omit_empty=true', lean], [', omit_empty=true, the next page asked for at the Link', overlapped],
    ] as const;
    for (const [label, run] of follows) {
      const feedRate = run.changes / run.seconds;
      console.log(
        `follow from the start, per_page ${PER_PAGE}${label}: ${run.changes} changes in ${run.cursors.length} pages, ${run.seconds.toFixed(2)} s: ` +
          `${Math.round(feedRate)} QSOs/s, ${(run.bytes / 1024 / 1024 / run.seconds).toFixed(1)} MB/s (${(run.bytes / run.changes).toFixed(0)} bytes per change); ` +
          `page p50 ${ms(run.times.p50)}, p90 ${ms(run.times.p90)}, p99 ${ms(run.times.p99)} ms`,
      );
      console.log(`  page p50 by phase: until the answer's head ${run.phaseP50.head} ms, its body ${run.phaseP50.body} ms, the client's JSON.parse ${run.phaseP50.parse} ms`);
      console.log(`  feed at ${((feedRate / plainRate) * 100).toFixed(0)} % of the ceiling; target ≥ 100,000 QSOs/s: ${feedRate >= 100_000 ? 'met' : 'MISSED'}`);
    }
    console.log(`  server RSS idle ${idleRss.toFixed(0)} MiB, peak ${peakRss.toFixed(0)} MiB`);
    console.log(`  ceiling, plain keyset SELECT of the same rows through pg: ${plainRows} rows in ${plainSeconds.toFixed(2)} s, ${Math.round(plainRate)} rows/s`);

    // --- 2. single pages ----------------------------------------------------------------------
    const principalScope = { scope: { stationIds: [home], operator: null }, ownerId, filtered: false, perPage: PER_PAGE };
    const codec = new CursorCodec(await serverKey(db, 'change_cursor'));
    const decodeCursor = (text: string): ChangeCursor => {
      const decoded = codec.decode(text, ownerId);
      if (decoded === null || !('cursor' in decoded)) throw new Error('the server gave a cursor this benchmark cannot read');
      return decoded.cursor;
    };
    const pageStatementMs = async (label: string, cursorText: string) => {
      const request = { ...principalScope, cursor: cursorText === '' ? null : decodeCursor(cursorText) };
      const bounds = await changeBounds(db, [home]);
      const { page } = changePageStatements(request, bounds);
      // The page's values end with the outlook's own, which the page's text does not read.
      const read = Math.max(...[...page.text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${page.text}`, page.values.slice(0, read));
      const plan = rows.map((r) => r['QUERY PLAN']);
      if (EXPLAIN) console.log(`\n--- ${label}\n${plan.join('\n')}`);
      return Number(/Execution Time: ([\d.]+) ms/.exec(plan.at(-1)!)![1]);
    };
    // What a sync tool's poll of a log it is up to date with costs the server and the database:
    // only polls between the two samples.
    const meter = CpuMeter.available() ? new CpuMeter(serverPid, databaseName(database.url)) : null;
    const pollCost = async (cursorText: string): Promise<{ server: number; database: number } | null> => {
      if (meter === null) return null;
      const before = meter.sample();
      for (let i = 0; i < POLLS; i++) await getPage(cursorText);
      const spent = cpuSpent(before, meter.sample());
      return { server: Math.round((spent.server! * 1000) / POLLS), database: Math.round((spent.database * 1000) / POLLS) };
    };
    const scenario = async (label: string, cursorText: string, extra = '') => {
      const at = cursorText === '' ? { txid: '0', id: 0 } : { txid: decodeCursor(cursorText)!.txid, id: decodeCursor(cursorText)!.id };
      for (let i = 0; i < 3; i++) await getPage(cursorText || null, extra);
      const times: number[] = [];
      const plainTimes: number[] = [];
      let page: Page | undefined;
      let n = 0;
      for (let i = 0; i < RUNS; i++) {
        const begin = process.hrtime.bigint();
        ({ page, bytes: n } = await getPage(cursorText || null, extra));
        times.push(secondsSince(begin) * 1000);
        const plainBegin = process.hrtime.bigint();
        await plainPage(at.txid, at.id);
        plainTimes.push(secondsSince(plainBegin) * 1000);
      }
      const s = stats(times);
      const plain = stats(plainTimes);
      const statement = await pageStatementMs(label, cursorText);
      const kinds = page!.data.reduce((acc, c) => ((acc[c.change] = (acc[c.change] ?? 0) + 1), acc), {} as Record<string, number>);
      console.log(
        `| ${label} | ${Object.entries(kinds).map(([k, v]) => `${v} ${k}`).join(', ') || 'none'} | ${(n / 1024 / 1024).toFixed(1)} | ${ms(s.p50)} | ${ms(s.p90)} | ${ms(s.p99)} | ` +
          `${ms(plain.p50)} / ${ms(plain.p99)} | ${ms(statement)} | ${s.p99 < 100 ? 'met' : 'MISSED'} |`,
      );
    };
    console.log(`\n${machine()}\n\n| page (per_page ${PER_PAGE}) | changes | MB | p50 ms | p90 ms | p99 ms | plain SELECT p50 / p99 ms | page statement ms | p99 < 100 ms |\n|---|---|---|---|---|---|---|---|---|`);
    const middle = cursors[Math.floor(cursors.length / 2)]!;
    await scenario('first page (no cursor)', '');
    await scenario(`middle page (page ${Math.floor(cursors.length / 2) + 1})`, middle);
    await scenario(`last page (page ${cursors.length})`, cursors.at(-1)!);
    await scenario('up to date (nothing new)', upToDate);
    const polls = await pollCost(upToDate);
    await scenario('first page, omit_empty=true', '', '&omit_empty=true');
    await scenario(`middle page, omit_empty=true`, middle, '&omit_empty=true');
    await scenario(`last page, omit_empty=true`, cursors.at(-1)!, '&omit_empty=true');

    // About 5,000 deletions, then 5,000 edits (every 200th id), scattered over the log, each in a transaction of its own.
    const deleted = await inQsoTransaction(db, [ownerId], (client) => client.query('DELETE FROM qso WHERE station_id = $1 AND id % 200 = 1', [home]));
    const edited = await inQsoTransaction(db, [ownerId], (client) => client.query(`UPDATE qso SET comment = 'edited', lotw_qsl_rcvd = 'Y' WHERE station_id = $1 AND id % 200 = 2`, [home]));
    await db.query('VACUUM ANALYZE qso, qso_deletions');
    const { page: tombstones } = await getPage(upToDate);
    await scenario(`after ${deleted.rowCount} deletes: the tombstones`, upToDate);
    await scenario(`after them: the ${edited.rowCount} edits`, tombstones.meta.cursor);
    await scenario('middle page again (tombstones after it)', middle);
    await scenario('first page again', '');
    if (polls) console.log(`\nA client up to date polling (${POLLS} polls one after the other): CPU µs per poll: server ${polls.server}, PostgreSQL ${polls.database}`);
    console.log(`\nserver peak RSS ${memory('VmHWM').toFixed(0)} MiB\n${machine()}`);
  } finally {
    if (server) {
      server.stdin!.end();
      await once(server, 'exit');
    }
    await database.dispose();
  }
}
