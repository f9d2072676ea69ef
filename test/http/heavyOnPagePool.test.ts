import t from 'tap';
import type pg from 'pg';
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
/**
 * The text of every statement run on `pool`'s connections from now on (whatever else runs there
 * meanwhile, the counts' compaction say, is recorded too, and told apart by its text).
 */
function statementsOf(pool: pg.Pool): string[] {
  const texts: string[] = [];
  const watched = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => {
    if (watched.has(client)) return;
    watched.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const [first] = args;
      texts.push(typeof first === 'string' ? first : String((first as { text?: unknown } | undefined)?.text ?? ''));
      return query(...args);
    };
  });
  return texts;
}

const isCut = (text: string) => text.includes('qso_change_bounds');
const isPage = (text: string) => text.startsWith('COPY (');

t.test('lists waiting for a page connection run none of their statements on the main pool', async (t) => {
  const server = await startTestServer(t);
  const { pool, pagePool } = server.db;
  const { token, stationId, userId } = await createOperator(pool);
  await seedLongQsos(pool, stationId, 30);
  // One user's lists: those beyond the user's share of the page pool wait for it before the pool.
  const waiting = () => pagePool.waitingCount + pagePool.share!.waiting(userId);
  const held = await Promise.all(Array.from({ length: pagePool.options.max }, () => pagePool.connect()));
  const onMain = statementsOf(pool);
  const onPages = statementsOf(pagePool);

  // Every one of these reads the cut: ADIF pages, and JSON pages with since_id.
  const paths = ['/api/v2/qso?format=adif&per_page=10', '/api/v2/qso?since_id=1&per_page=10', '/api/v2/qso?format=adif&band=20m&since_id=2'];
  const lists = Array.from({ length: 12 }, (_, i) => fetch(`${server.url}${paths[i % paths.length]}`, { headers: { authorization: `Bearer ${token}` } }));
  // Awaited below; a failure before then must not go unheard.
  for (const list of lists) list.catch(() => undefined);
  for (let wait = 0; wait < 300 && waiting() < lists.length; wait++) await sleep(10);
  t.equal(waiting(), lists.length, 'every list waits for a page connection');
  t.same(onMain.filter((text) => isCut(text) || isPage(text)), [], 'having run nothing of its own on the main pool');

  const { rows: [qso] } = await pool.query<{ id: number }>('SELECT min(id) AS id FROM qso WHERE station_id = $1', [stationId]);
  const cheap = await server.request(`/api/v2/qso/${qso!.id}`, { token });
  t.equal(cheap.status, 200, 'a cheap request is answered meanwhile');
  for (const client of held) client.release();
  const answers = await Promise.all(lists.map(async (list) => {
    const response = await list;
    return { status: response.status, body: (await response.json()) as { data: unknown } };
  }));
  t.same(answers.map((answer) => answer.status), lists.map(() => 200), 'every list is answered once a page connection is free');
  t.ok(answers.every((answer) => answer.body.data !== null), 'with its page');
  t.equal(onPages.filter(isCut).length, lists.length, 'each read its cut on its page connection');
  t.same(onMain.filter((text) => isCut(text) || isPage(text)), [], 'and nothing of theirs ran on the main pool');
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
