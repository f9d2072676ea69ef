/**
 * Long pages read by slow clients against everybody else's lists (issue 16, bounded resources):
 * `GET /api/v2/qso` (page 1 of 50) timed from one client, first alone (the ceiling), then while
 * --slow clients hold a `per_page=5000` page each (several MB) and read nothing of it for
 * --seconds (the window opens a second after they asked), then read it all. Against `logbook serve` as an operator starts it (needs `npm run
 * build`; `--workers` the CPUs), on the logs of benchmarks/qso-list.ts (1M owned + 1M foreign
 * QSOs), twice: with the default read-ahead (1 MiB in memory, the rest of a page waiting on disk,
 * lib/http/spillBuffer.ts) and with `page_read_ahead_bytes: 0`, which holds a page's connection
 * until its client has read it, as every page longer than its read-ahead did until 2026-11-28.
 * Printed per configuration: the timed list's p50/p99/max and its ratio to the ceiling, the
 * requests it got through in the window, the peak RSS of the serve process, the bytes waiting in
 * the spool folder at the end of the window, and whether every slow client got its 5,000 QSOs.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx benchmarks/slow-readers.ts \
 *     [--qsos 1000000] [--slow 8] [--seconds 8] [--workers N] [--keep | --reuse <db>]
 */
import { availableParallelism, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { get, type IncomingMessage } from 'node:http';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { compactQsoCounts } from '../lib/qso/counts.js';
import { logbookHome } from '../lib/db/embedded.js';
import { generateLogs } from './lib/generatedLog.js';
import { numberOption, percentile, scratchDatabase, secondsSince } from './lib/scratch.js';
import { closeConnections, sendDiscarding } from './lib/httpClient.js';
import { startServe } from './lib/serveProcess.js';
import { spilledPages } from '../test/helpers/spilledPages.js';

const QSOS = numberOption('qsos', 1_000_000);
const SLOW = numberOption('slow', 8);
const SECONDS = numberOption('seconds', 8);
const WORKERS = numberOption('workers', availableParallelism());

const database = await scratchDatabase('slow_readers');
const { token } = await generateLogs(database.pool, QSOS);
await compactQsoCounts(database.pool, 0);
const headers = { authorization: `Bearer ${token}` };

/** Bytes of pages waiting on disk in every process's spool folder. */
function spooledBytes(): number {
  const root = join(logbookHome(), 'spool');
  let folders: string[];
  try {
    folders = readdirSync(root);
  } catch {
    // No spool folder yet: nothing waits.
    return 0;
  }
  return folders.flatMap((folder) => spilledPages(join(root, folder))).reduce((sum, size) => sum + size, 0);
}

/** GET of the small list, one after another until `until` (a time in ms) or `count` requests: latencies, sorted. */
async function smallLists(url: string, until: number, count = Infinity): Promise<number[]> {
  const times: number[] = [];
  while (Date.now() < until && times.length < count) {
    const begin = process.hrtime.bigint();
    const status = await sendDiscarding(`${url}/api/v2/qso?per_page=50`, { headers });
    if (status !== 200) throw new Error(`small list: HTTP ${status}`);
    times.push(secondsSince(begin) * 1000);
  }
  return times.sort((a, b) => a - b);
}

/**
 * A long page asked for at once, whose client reads its head (when it comes: a page waiting for
 * a connection has none yet) and then nothing until `read()`, which counts its QSOs: 'cut off'
 * when the server disconnected it first (response_stall_timeout_ms, 30 s).
 */
function slowPage(url: string): { read(): Promise<number | 'cut off'> } {
  const answer = new Promise<IncomingMessage>((resolve, reject) => {
    get(`${url}/api/v2/qso?per_page=5000`, { headers, agent: false }, (response) => {
      response.pause();
      resolve(response);
    }).on('error', reject);
  });
  // Read later; a connection reset before the head is the same cut-off.
  answer.catch(() => undefined);
  return {
    async read(): Promise<number | 'cut off'> {
      let response: IncomingMessage;
      try {
        response = await answer;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ECONNRESET') return 'cut off';
        throw error;
      }
      if (response.statusCode !== 200) throw new Error(`long page: HTTP ${response.statusCode}`);
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.resume();
      return new Promise((resolve, reject) => {
        response.on('end', () => resolve((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: unknown[] }).data.length));
        response.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve('cut off') : reject(error)));
      });
    },
  };
}

const line = (readAhead: string, label: string, times: number[], ceiling: number[]) =>
  `| ${readAhead} | ${label} | ${times.length} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | ${times[times.length - 1]!.toFixed(1)} | ${(percentile(times, 99) / percentile(ceiling, 99)).toFixed(2)} |`;

console.log(`load average at start: ${loadavg().map((n) => n.toFixed(2)).join(' ')}; logbook serve --workers ${WORKERS}, ${SLOW} slow clients of a per_page=5000 page, ${SECONDS} s`);
console.log('\n| read-ahead | small list | requests | p50 ms | p99 ms | max ms | p99 / ceiling |\n|---|---|---|---|---|---|---|');
const notes: string[] = [];
for (const [label, config] of [['default (1 MiB, then disk)', {}], ['page_read_ahead_bytes 0', { page_read_ahead_bytes: 0 }]] as const) {
  const server = await startServe(database.url, { workers: WORKERS, config });
  // Every worker warmed by both kinds of list, as in a server that has been running.
  await smallLists(server.url, Infinity, 50 * WORKERS);
  await Promise.all(Array.from({ length: 2 * WORKERS }, () => slowPage(server.url).read()));
  const ceiling = await smallLists(server.url, Date.now() + SECONDS * 1000);
  const pages = Array.from({ length: SLOW }, () => slowPage(server.url));
  // Their statements under way (or their requests waiting for a connection) before the window opens.
  await sleep(1000);
  const during = await smallLists(server.url, Date.now() + SECONDS * 1000);
  const waiting = spooledBytes();
  const counts = await Promise.all(pages.map((page) => page.read()));
  console.log(line(label, 'alone (ceiling)', ceiling, ceiling));
  console.log(line(label, `while ${SLOW} clients read nothing of a long page`, during, ceiling));
  const rss = WORKERS > 1 ? `workers' peak RSS ${server.workersPeakRssMb().map((mb) => mb.toFixed(0)).join(', ')} MiB` : `peak RSS ${server.peakRssMb().toFixed(0)} MiB`;
  notes.push(`${label}: ${rss}, ${(waiting / 1e6).toFixed(1)} MB waiting on disk at the window's end, slow clients got ${counts.join(', ')} QSOs`);
  await server.stop();
}
console.log(`\n${notes.join('\n')}\nload average at end: ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
closeConnections();
await database.dispose();
