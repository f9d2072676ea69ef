import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { slowProbes as probes } from '../helpers/slowProbe.js';

t.test('a request whose client goes away has its backend terminated', async (t) => {
  const server = await startTestServer(t, { resources: probes });
  const admin = server.db.pool;
  const { token } = await createOperator(admin);
  const backendsOf = async (tag: string) =>
    (await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' AND query LIKE $1 AND pid <> pg_backend_pid()", [`%${tag}%`])).rows.map((row) => row.pid);
  for (const via of ['query', 'client', 'page']) {
    const tag = `abandon${via}`;
    const aborter = new AbortController();
    const request = fetch(`${server.url}/api/v2/lookup?via=${via}&tag=${tag}`, { signal: aborter.signal, headers: { authorization: `Bearer ${token}` } }).catch(() => 'aborted');
    let pids: number[] = [];
    for (let i = 0; i < 100 && pids.length === 0; i++) {
      await sleep(20);
      pids = await backendsOf(tag);
    }
    t.equal(pids.length, 1, `${via}: the request's query runs`);
    aborter.abort();
    t.equal(await request, 'aborted');
    let running = pids;
    for (let i = 0; i < 100 && running.length > 0; i++) {
      await sleep(20);
      running = (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE pid = ANY($1)', [pids])).rows.map((row) => row.pid);
    }
    t.same(running, [], `${via}: the backend is gone from pg_stat_activity`);
  }
  // The pools carry on with fresh connections.
  t.equal((await server.request('/api/v2/status')).status, 200);
  t.equal((await server.services.db.query('SELECT 1 AS one')).rows[0].one, 1);
  t.equal((await server.services.bulkDb.query('SELECT 1 AS one')).rows[0].one, 1);
  t.equal((await server.services.pageDb.query('SELECT 1 AS one')).rows[0].one, 1);
});
