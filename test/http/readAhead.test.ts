import t, { type Test } from 'tap';
import { get, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer } from '../helpers/server.js';
import { testDatabase } from '../helpers/db.js';
import { timed } from '../helpers/timed.js';
import { createOperator } from '../helpers/fixtures.js';
import { seedLongQsos } from '../helpers/qsoRows.js';
import { openDatabase } from '../../lib/db/database.js';
import { createLogger } from '../../lib/log.js';
import { ReadAheadBudget } from '../../lib/http/readAhead.js';
import { spilledPages } from '../helpers/spilledPages.js';
import { until } from '../helpers/worker.js';

const MiB = 1024 * 1024;

/** A server whose page pool has one connection (a process's share on a machine of one core per worker). */
async function onePageConnection(t: Test, config: Record<string, unknown>) {
  const base = await testDatabase(t);
  const db = await openDatabase({ logger: createLogger({}, true), url: base.url, migrate: false, pagePoolSize: 1 });
  t.teardown(() => db.close());
  const server = await startTestServer(t, { db, config: { response_stall_timeout_ms: 60_000, ...config } });
  const op = await createOperator(db.pool);
  // 5,000 long QSOs: a page of about 5 MB, more than the loopback sockets hold.
  await seedLongQsos(db.pool, op.stationId, 5000);
  return { server, db, op };
}

/** A request whose client reads the head, then nothing until `resume` is called; `body` is what it read in all. */
async function slowReader(url: string, token: string) {
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    get(url, { headers: { authorization: `Bearer ${token}` } }, resolve).on('error', reject);
  });
  response.pause();
  return {
    status: response.statusCode,
    resume(): Promise<string> {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.resume();
      return new Promise((resolve, reject) => {
        response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        response.on('error', reject);
      });
    },
  };
}

t.test('a page read ahead of its slow client gives its connection back, and the client still gets all of it', async (t) => {
  const { server, db, op } = await onePageConnection(t, { page_read_ahead_bytes: 16 * MiB });
  const budget = server.services.readAhead.available;
  const slow = await slowReader(`${server.url}/api/v2/qso?per_page=5000`, op.token);
  t.equal(slow.status, 200);
  for (let i = 0; i < 100 && db.pagePool.idleCount < db.pagePool.totalCount; i++) await sleep(20);
  t.equal(db.pagePool.totalCount - db.pagePool.idleCount, 0, 'the page connection is free while the client reads nothing');
  t.equal(server.services.readAhead.available, budget - 16 * MiB, 'the page holds its loan');
  const other = await timed(server.request('/api/v2/qso?per_page=10', { token: op.token }));
  t.equal(other.value.status, 200);
  t.ok(other.ms < 2000, `another list is answered meanwhile (${other.ms} ms)`);
  const page = JSON.parse(await slow.resume()) as { data: Array<{ id: number }>; meta: { total: number } };
  t.equal(page.data.length, 5000, 'the slow client gets the whole page');
  t.equal(page.meta.total, 5000);
  t.equal(new Set(page.data.map((qso) => qso.id)).size, 5000, 'each QSO once');
  await sleep(50);
  t.equal(server.services.readAhead.available, budget, 'the loan is returned with the answer');
  t.match(server.services.metrics.render(), /logbook_page_answers_total\{waited_in="memory"\} 2\n/, 'both pages counted as waiting in memory');
  t.notMatch(server.services.metrics.render(), /waited_in="disk"/);
});

/** Waits (up to 3 s) until the page pool has no connection checked out. */
async function pageConnectionFree(db: { pagePool: { idleCount: number; totalCount: number } }): Promise<number> {
  for (let i = 0; i < 150 && db.pagePool.idleCount < db.pagePool.totalCount; i++) await sleep(20);
  return db.pagePool.totalCount - db.pagePool.idleCount;
}

t.test('a page longer than its read-ahead waits on disk: the connection is free, the client gets all of it, the file goes', async (t) => {
  const { server, db, op } = await onePageConnection(t, { page_read_ahead_bytes: 64 * 1024 });
  const folder = server.services.spoolFolder;
  const budget = server.services.readAhead.available;
  const slow = await slowReader(`${server.url}/api/v2/qso?per_page=5000`, op.token);
  t.equal(slow.status, 200);
  t.equal(await pageConnectionFree(db), 0, 'the page connection is free while the client reads nothing');
  const files = spilledPages(folder);
  t.equal(files.length, 1, 'one page waits on disk');
  t.ok(files[0]! > MiB, `what memory did not hold is in the file (${files[0]} bytes)`);
  const other = await timed(server.request('/api/v2/qso?per_page=10', { token: op.token }));
  t.equal(other.value.status, 200);
  t.ok(other.ms < 2000, `another list is answered meanwhile (${other.ms} ms)`);
  const page = JSON.parse(await slow.resume()) as { data: Array<{ id: number }>; meta: { total: number } };
  t.equal(page.data.length, 5000, 'the slow client gets the whole page');
  t.equal(new Set(page.data.map((qso) => qso.id)).size, 5000, 'each QSO once');
  // The file goes and the loan comes back once the answer has ended, asynchronously.
  await until(() => spilledPages(folder).length === 0 && server.services.readAhead.available === budget, 'the file removed and the loan returned');
  t.same(spilledPages(folder), [], 'the file is removed with the answer');
  t.equal(server.services.readAhead.available, budget, 'the loan is returned');
  t.match(server.services.metrics.render(), /logbook_page_answers_total\{waited_in="disk"\} 1\n/, 'the long page counted as waiting on disk');
  t.match(server.services.metrics.render(), /logbook_page_answers_total\{waited_in="memory"\} 1\n/, 'the short one in memory');
  const fast = await server.request('/api/v2/qso?per_page=5000', { token: op.token });
  t.same(page.data.map((qso) => qso.id), (fast.body.data as Array<{ id: number }>).map((qso) => qso.id), 'in the order a fast client gets');
});

t.test('a change feed page longer than its read-ahead waits on disk too', async (t) => {
  const { server, db, op } = await onePageConnection(t, { page_read_ahead_bytes: 64 * 1024 });
  const slow = await slowReader(`${server.url}/api/v2/qso/changes?per_page=5000`, op.token);
  t.equal(slow.status, 200);
  t.equal(await pageConnectionFree(db), 0, 'the page connection is free while the client reads nothing');
  t.equal(spilledPages(server.services.spoolFolder).length, 1, 'the page waits on disk');
  const page = JSON.parse(await slow.resume()) as { data: Array<{ id: number }>; meta: { has_more: boolean } };
  t.equal(page.data.length, 5000, 'the slow client gets every change');
  t.equal(new Set(page.data.map((change) => change.id)).size, 5000, 'each QSO once');
  t.equal(page.meta.has_more, false);
});

t.test('a client gone while its page waits on disk leaves no file and no loan', async (t) => {
  const { server, db, op } = await onePageConnection(t, { page_read_ahead_bytes: 64 * 1024 });
  const folder = server.services.spoolFolder;
  const budget = server.services.readAhead.available;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    get(`${server.url}/api/v2/qso?per_page=5000`, { headers: { authorization: `Bearer ${op.token}` } }, resolve).on('error', reject);
  });
  response.pause();
  t.equal(await pageConnectionFree(db), 0);
  t.equal(spilledPages(folder).length, 1, 'the page waits on disk');
  response.destroy();
  await until(() => spilledPages(folder).length === 0 && server.services.readAhead.available === budget, 'the file removed and the loan returned');
  t.same(spilledPages(folder), [], 'the file is removed');
  t.equal(server.services.readAhead.available, budget, 'the loan is returned');
  t.equal((await server.request('/api/v2/qso?per_page=10', { token: op.token })).status, 200, 'the connection serves the next list');
});

t.test('without read-ahead (0) a slow client holds the connection', async (t) => {
  const { server, db, op } = await onePageConnection(t, { page_read_ahead_bytes: 0 });
  const slow = await slowReader(`${server.url}/api/v2/qso?per_page=5000`, op.token);
  await sleep(300);
  t.equal(db.pagePool.totalCount - db.pagePool.idleCount, 1, 'the page holds its connection while its client reads nothing');
  const other = timed(server.request('/api/v2/qso?per_page=10', { token: op.token }));
  const first = await Promise.race([other.then(() => 'answered'), sleep(1000).then(() => 'waiting')]);
  t.equal(first, 'waiting', 'another list of the process waits for it');
  const page = JSON.parse(await slow.resume()) as { data: unknown[] };
  t.equal(page.data.length, 5000);
  t.equal((await other).value.status, 200, 'and is answered once the page is read');
  t.match(server.services.metrics.render(), /logbook_page_answers_total\{waited_in="connection"\} 2\n/, 'both pages counted as holding their connection');
});

t.test('the budget lends whole pages until it is spent, and nothing when read-ahead is off', async (t) => {
  const budget = new ReadAheadBudget({ perPage: MiB, pages: 2, spoolFolder: '' });
  t.same([budget.lend(), budget.lend(), budget.lend()], [MiB, MiB, 0], 'two pages, then none: the third page holds its connection');
  budget.giveBack(MiB);
  t.equal(budget.lend(), MiB, 'a returned loan is lent again');
  t.equal(new ReadAheadBudget({ perPage: 0, pages: 32, spoolFolder: '' }).lend(), 0);
});
