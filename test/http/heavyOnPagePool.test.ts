import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { insertQsos, seedLongQsos } from '../helpers/qsoRows.js';

/**
 * Page-sized heavy requests (lists, reports over a whole scope) run their statements on the page
 * pool, where they queue among themselves: while they wait there they hold nothing of the main
 * pool, which cheap requests need. The cut of a page followed by id (every ADIF page, a JSON page with
 * since_id) once ran on the main pool, and a flood of such lists took every one of its
 * connections; `lookup?grid=all` read a whole scope there.
 */
t.test('lists waiting for a page connection take only their token look-up from the main pool', async (t) => {
  const server = await startTestServer(t);
  const { pool, pagePool } = server.db;
  const { token, stationId } = await createOperator(pool);
  await seedLongQsos(pool, stationId, 30);
  const held = await Promise.all(Array.from({ length: pagePool.options.max }, () => pagePool.connect()));
  let mainCheckOuts = 0;
  pool.on('acquire', () => void mainCheckOuts++);

  const paths = ['/api/v2/qso?format=adif&per_page=10', '/api/v2/qso?since_id=1&per_page=10', '/api/v2/qso?format=adif&band=20m&since_id=2'];
  const lists: Promise<Response>[] = [];
  for (let i = 0; i < 12; i++) {
    lists.push(fetch(`${server.url}${paths[i % paths.length]}`, { headers: { authorization: `Bearer ${token}` } }));
    // One at a time, so that each token look-up is a statement of its own (they are batched when they meet).
    for (let wait = 0; wait < 200 && pagePool.waitingCount < i + 1; wait++) await sleep(10);
    t.equal(pagePool.waitingCount, i + 1, `list ${i + 1} waits for a page connection`);
  }
  t.equal(mainCheckOuts, lists.length, 'one main-pool check-out a list: its token look-up');

  const { rows: [qso] } = await pool.query<{ id: number }>('SELECT min(id) AS id FROM qso WHERE station_id = $1', [stationId]);
  const cheap = await server.request(`/api/v2/qso/${qso!.id}`, { token });
  t.equal(cheap.status, 200, 'a cheap request is answered meanwhile');
  const cheapCheckOuts = mainCheckOuts - lists.length;
  for (const client of held) client.release();
  const answers = await Promise.all(lists.map(async (list) => ({ status: (await list).status, body: await (await list).json() as { data: unknown } })));
  t.same(answers.map((answer) => answer.status), lists.map(() => 200), 'every list is answered once a page connection is free');
  t.ok(answers.every((answer) => answer.body.data !== null), 'with its page');
  t.equal(mainCheckOuts, lists.length + cheapCheckOuts, 'and none of their statements ran on the main pool');
});

t.test('lookup?grid=all queues on the page pool', async (t) => {
  const server = await startTestServer(t);
  const { pool, pagePool } = server.db;
  const { token, stationId } = await createOperator(pool);
  await insertQsos(pool, [{ station_id: stationId, call: 'DL1AA', time_on: '2024-01-01 10:00:00', gridsquare: 'JO62QM' }]);
  const held = await Promise.all(Array.from({ length: pagePool.options.max }, () => pagePool.connect()));
  const lookup = server.request('/api/v2/lookup?grid=all', { token });
  for (let wait = 0; wait < 200 && pagePool.waitingCount < 1; wait++) await sleep(10);
  t.equal(pagePool.waitingCount, 1, 'it waits for a page connection');
  for (const client of held) client.release();
  const answer = await lookup;
  t.equal(answer.status, 200);
  t.same(answer.body.data, { grids: ['JO62'], count: 1 }, 'and answers once one is free');
});
