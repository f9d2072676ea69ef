import t, { type Test } from 'tap';
import { createBrowserToken, STATUS_TOPIC } from '../../lib/worker/index.js';
import { connectClient, publish, registerTopic, SECRET, startTestWorker, upgradeStatus, type TestClient } from '../helpers/worker.js';

const token = (topic: string, userId = 7, ttlSeconds = 60) => createBrowserToken(SECRET, { userId, topic, ttlSeconds });

/** RFC 6455 close code the worker ends a refused socket with. */
const POLICY_VIOLATION = 1008;
/** What a client reports when the connection ends without a close frame. */
const NO_CLOSE_FRAME = 1006;

t.test('browser WebSocket', async (t) => {
  const worker = await startTestWorker({ authTimeoutMs: 300 });
  t.teardown(() => worker.close());
  const { wsPort, internalPort } = worker;
  await registerTopic(internalPort, 'station.1');
  await registerTopic(internalPort, 'station.2');
  await registerTopic(internalPort, 'public.1', false);

  async function authenticated(t: Test, topic: string, userId = 7): Promise<TestClient> {
    const client = await connectClient(wsPort, topic);
    client.auth(token(topic, userId));
    t.same(await client.next(), { type: 'auth_ok' });
    return client;
  }

  async function rejected(t: Test, client: TestClient, code: string): Promise<void> {
    t.match(await client.next(), { type: 'error', code, message: String });
    t.same(await client.closed, { code: POLICY_VIOLATION });
  }

  t.test('checks before the upgrade', async (t) => {
    t.equal(await upgradeStatus(`ws://127.0.0.1:${wsPort}/ws`), 400, 'missing topic');
    t.equal(await upgradeStatus(`ws://127.0.0.1:${wsPort}/ws?topic=`), 400, 'empty topic');
    t.equal(await upgradeStatus(`ws://127.0.0.1:${wsPort}/ws?topic=nobody.1`), 404, 'unregistered topic');
    t.equal(await upgradeStatus(`ws://127.0.0.1:${wsPort}/ws?topic=station.1`), 101);
  });

  t.test('auth_ok comes first, then pushes in publish order', async (t) => {
    const client = await connectClient(wsPort, 'station.1');
    await publish(internalPort, 'station.1', { before: 'auth' });
    t.ok(await client.silentFor(100), 'nothing is pushed before authentication');
    client.auth(token('station.1'));
    t.same(await client.next(), { type: 'auth_ok' });
    for (let n = 1; n <= 20; n++) await publish(internalPort, 'station.1', { n });
    for (let n = 1; n <= 20; n++) t.same(await client.next(), { type: 'push', payload: { n } });
    await publish(internalPort, 'station.2', { other: 'topic' });
    t.ok(await client.silentFor(100), 'no frames of other topics');
    client.close();
  });

  t.test('bad tokens are refused and the socket closed', async (t) => {
    const good = token('station.1');
    const [encoded, signature] = good.split('.') as [string, string];
    const tampered = Buffer.from(JSON.stringify({ user_id: 8, topic: 'station.1', expires: 4_000_000_000 })).toString('hex');
    const cases: [string, string][] = [
      ['bad signature', `${encoded}.${'0'.repeat(64)}`],
      ['tampered claims', `${tampered}.${signature}`],
      ['expired', createBrowserToken(SECRET, { userId: 7, topic: 'station.1', ttlSeconds: 1 }, Math.floor(Date.now() / 1000) - 10)],
      ['other topic', token('station.2')],
      ['other secret', createBrowserToken('another-secret-that-is-long-enough-xx', { userId: 7, topic: 'station.1', ttlSeconds: 60 })],
    ];
    for (const [name, bad] of cases) {
      const client = await connectClient(wsPort, 'station.1');
      client.auth(bad);
      t.match(await client.next(), { type: 'error', code: 'unauthorized', message: 'invalid or expired token' }, name);
      t.same(await client.closed, { code: POLICY_VIOLATION }, `${name}: closed as a policy violation`);
    }
  });

  t.test('the first frame must be an auth frame', async (t) => {
    for (const frame of ['hello', JSON.stringify({ type: 'status' }), JSON.stringify({ type: 'auth' }), JSON.stringify({ type: 'auth', token: '' })]) {
      const client = await connectClient(wsPort, 'station.1');
      client.ws.send(frame);
      await rejected(t, client, 'auth_required');
    }
  });

  t.test('no auth frame in time', async (t) => {
    const client = await connectClient(wsPort, 'station.1');
    const started = Date.now();
    t.same(await client.next(1000), { type: 'error', code: 'auth_required', message: 'first frame must be {type:auth,token:...}' });
    t.same(await client.closed, { code: POLICY_VIOLATION });
    t.ok(Date.now() - started >= 250, 'waited for the configured timeout');
  });

  t.test('topics registered without require_token accept any token', async (t) => {
    const client = await connectClient(wsPort, 'public.1');
    client.auth('anything');
    t.same(await client.next(), { type: 'auth_ok' });
    await publish(internalPort, 'public.1', 'hello');
    t.same(await client.next(), { type: 'push', payload: 'hello' });
    client.close();
  });

  t.test('inbound frames over 4 KiB close the socket', async (t) => {
    const client = await authenticated(t, 'station.1');
    client.ws.send('x'.repeat(5000));
    // uWS drops the connection without a close frame when a message exceeds maxPayloadLength.
    t.same(await client.closed, { code: NO_CLOSE_FRAME }, 'cut off, not closed politely or as a policy violation');
  });

  t.test('other inbound frames are ignored', async (t) => {
    const client = await authenticated(t, 'station.1');
    client.ws.send(JSON.stringify({ type: 'status' }));
    client.ws.send('whatever');
    t.ok(await client.silentFor(100));
    await publish(internalPort, 'station.1', 1);
    t.same(await client.next(), { type: 'push', payload: 1 });
    client.close();
  });

  t.test('counts and the status topic', async (t) => {
    const a = await authenticated(t, 'station.1', 11);
    const b = await authenticated(t, 'station.2', 11);
    const c = await authenticated(t, 'public.1', 0);
    const statusClient = await authenticated(t, STATUS_TOPIC, 12);
    statusClient.ws.send(JSON.stringify({ type: 'status' }));
    const frame = await statusClient.next();
    t.match(frame, {
      type: 'status',
      payload: {
        status: 'ok',
        version: String,
        uptime: String,
        uptime_seconds: Number,
        registered_topics: 4,
        active_topics: 4,
        // user 11 twice, user 12, one anonymous socket
        connected_clients: 3,
        connected_sockets: 4,
        cluster_nodes: -1,
      },
    });
    statusClient.ws.send(JSON.stringify({ type: 'status' }));
    t.ok(await statusClient.silentFor(200), 'status requests are throttled');
    for (const client of [a, b, c, statusClient]) {
      client.close();
      await client.closed;
    }
  });
});
