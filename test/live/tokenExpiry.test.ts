import t from 'tap';
import { createBrowserToken } from '../../lib/worker/index.js';
import { createOperator } from '../helpers/fixtures.js';
import { startTestServer } from '../helpers/server.js';
import { connectClient, SECRET, spawnWorkerProcess, type TestClient } from '../helpers/worker.js';

// A socket authenticated with a browser token stayed open after that token expired: a browser
// token handed out for an hour gave a live feed for as long as the socket lasted. The worker now
// closes such a socket when its token expires; a socket with a token still valid is left alone.

const TTL_SECONDS = 2;

t.test('a socket is closed when its browser token expires, and no other', async (t) => {
  const worker = await spawnWorkerProcess({});
  t.teardown(() => worker.stop());
  const server = await startTestServer(t, {
    config: {
      worker: { url: `http://127.0.0.1:${worker.internalPort}`, secret: SECRET, public_url: `ws://127.0.0.1:${worker.wsPort}`, token_ttl_seconds: TTL_SECONDS },
    },
  });
  const op = await createOperator(server.db.pool, { callsign: 'DL1EXP' });
  const topic = `station.${op.stationId}`;
  const grant = await server.request(`/live/token?topic=${topic}`, { token: op.token });
  t.equal(grant.status, 200, 'a browser token of two seconds');
  const short = grant.body.data.token as string;
  const long = createBrowserToken(SECRET, { userId: op.userId, topic, ttlSeconds: 60, tokenId: op.tokenId });

  const clients: TestClient[] = [];
  for (const token of [short, long]) {
    const client = await connectClient(worker.wsPort, topic);
    t.teardown(() => client.close());
    client.auth(token);
    t.same(await client.next(), { type: 'auth_ok' });
    clients.push(client);
  }
  const [expiring, lasting] = clients;

  t.match(await expiring.next(TTL_SECONDS * 1000 + 3000).catch((err: Error) => ({ missing: err.message })), { type: 'error', code: 'token_expired' },
    'the socket with the expired token is told why');
  const closed = await Promise.race([expiring.closed, new Promise((resolve) => setTimeout(() => resolve({ code: 'still open' }), 2000))]);
  t.same(closed, { code: 1008 }, 'and closed');
  // Judged by the token's own claim (valid through its `expires` second), not by a clock read
  // here after connecting: on a loaded machine the connects take long enough to blur that.
  const { expires } = JSON.parse(Buffer.from(short.slice(0, short.indexOf('.')), 'hex').toString('utf8')) as { expires: number };
  const validUntil = (expires + 1) * 1000;
  t.ok(Date.now() >= validUntil, `not before the token expired (closed ${Date.now() - validUntil} ms after)`);

  const created = await server.request('/api/v2/qso', {
    method: 'POST', token: op.token,
    json: { station_profile_id: op.stationId, call: 'K1EXP', band: '20m', mode: 'SSB', qso_date: '2024-05-01', time_on: '1234' },
  });
  t.equal(created.status, 201);
  t.match(await lasting.next(5000), { type: 'push', payload: { type: 'qso_created' } }, 'the socket whose token is still valid stays and is served');

  const again = await connectClient(worker.wsPort, topic);
  again.auth(short);
  t.match(await again.next(), { type: 'error', code: 'unauthorized' }, 'the expired token opens no new socket');
  again.close();
});
