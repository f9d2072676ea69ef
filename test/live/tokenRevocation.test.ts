import { execFile } from 'node:child_process';
import t, { type Test } from 'tap';
import { createToken, revokeToken } from '../../lib/auth/tokens.js';
import { SCOPES } from '../../lib/auth/scopes.js';
import { createOperator, type Operator } from '../helpers/fixtures.js';
import { acquireRedis, deleteKeys, freePort, NO_REDIS_REASON, uniquePrefix } from '../helpers/redis.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { callApi, connectClient, registerTopic, SECRET, spawnWorkerProcess, type TestClient } from '../helpers/worker.js';
import { logbookBin } from '../helpers/bin.js';

// Issue 19 item 10: a browser token stayed good on new sockets until it expired, and sockets open
// with it stayed open, whatever happened to the API token it was minted from. Revoking that API
// token now refuses the first and closes the second, on every worker.

/** `logbook token revoke ID`, the operator's door, in a process of its own. */
function revokeWithCli(databaseUrl: string, tokenId: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [logbookBin, 'token', 'revoke', String(tokenId), '--json'], { env: { ...process.env, DATABASE_URL: databaseUrl, LOGBOOK_QUIET: '1' } },
      (error, stdout, stderr) => (error ? reject(new Error(stderr || error.message)) : resolve(stdout.trim())));
  });
}

async function browserToken(server: TestServer, topic: string, token: string): Promise<string> {
  const answer = await server.request(`/live/token?topic=${topic}`, { token });
  if (answer.status !== 200) throw new Error(`/live/token ${topic}: ${answer.status} ${answer.text}`);
  return answer.body.data.token as string;
}

async function opened(t: Test, wsPort: number, topic: string, token: string): Promise<TestClient> {
  const client = await connectClient(wsPort, topic);
  client.auth(token);
  t.same(await client.next(), { type: 'auth_ok' }, `socket on ${topic} (port ${wsPort}) authenticated`);
  t.teardown(() => client.close());
  return client;
}

async function endedByRevocation(t: Test, client: TestClient, what: string): Promise<void> {
  t.match(await client.next(5000).catch((err: Error) => ({ missing: err.message })), { type: 'error', code: 'token_revoked' }, `${what}: told why`);
  const closed = await Promise.race([client.closed, new Promise((resolve) => setTimeout(() => resolve({ code: 'still open' }), 3000))]);
  t.same(closed, { code: 1008 }, `${what}: closed`);
}

async function refused(t: Test, wsPort: number, topic: string, token: string, what: string): Promise<void> {
  const client = await connectClient(wsPort, topic);
  client.auth(token);
  t.match(await client.next(5000), { type: 'error', code: 'unauthorized' }, what);
  client.close();
}

/** A second token of the same user: revoking the first must leave its browser tokens alone. */
async function secondToken(server: TestServer, op: Operator): Promise<string> {
  return (await createToken(server.db.pool, { userId: op.userId, createdBy: op.userId, name: 'second', scopes: [...SCOPES], expiresAt: null })).token;
}

t.test('one worker, no Redis: `logbook token revoke` ends the browser tokens minted from that token', async (t) => {
  const worker = await spawnWorkerProcess({});
  t.teardown(() => worker.stop());
  const server = await startTestServer(t, {
    config: { worker: { url: `http://127.0.0.1:${worker.internalPort}`, secret: SECRET, public_url: `ws://127.0.0.1:${worker.wsPort}` } },
  });
  const op = await createOperator(server.db.pool, { callsign: 'DL1REV' });
  const other = await secondToken(server, op);
  const station = `station.${op.stationId}`;
  const user = `qsos_user.${op.userId}`;
  const revokedStation = await browserToken(server, station, op.token);
  const revokedUser = await browserToken(server, user, op.token);
  const kept = await browserToken(server, station, other);
  const onStation = await opened(t, worker.wsPort, station, revokedStation);
  const onUser = await opened(t, worker.wsPort, user, revokedUser);
  const survivor = await opened(t, worker.wsPort, station, kept);

  t.same(JSON.parse(await revokeWithCli(server.db.url, op.tokenId)), { revoked: true });
  await endedByRevocation(t, onStation, 'the station socket');
  await endedByRevocation(t, onUser, 'the user socket');
  await refused(t, worker.wsPort, station, revokedStation, 'a new socket with the revoked browser token is refused');

  const created = await server.request('/api/v2/qso', {
    method: 'POST', token: other,
    json: { station_profile_id: op.stationId, call: 'K1REV', band: '20m', mode: 'SSB', qso_date: '2024-05-01', time_on: '1234' },
  });
  t.equal(created.status, 201);
  t.match(await survivor.next(5000), { type: 'push', payload: { type: 'qso_created' } }, "the other token's socket stays and is served");

  t.same(await callApi(worker.internalPort, 'POST', '/internal/revoke', { token_id: 'x' }), { status: 400, text: 'bad request\n' });
  t.equal((await callApi(worker.internalPort, 'POST', '/internal/revoke', { token_id: 5 }, { secret: 'wrong' })).status, 403);
});

t.test('one worker, no Redis, restarted while the API keeps running: it learns the revocations again', async (t) => {
  // Fixed ports from the start: uWS sets SO_REUSEADDR only then, and the restart needs the same ones.
  const ports = { wsPort: await freePort(), internalPort: await freePort() };
  let worker = await spawnWorkerProcess(ports);
  t.teardown(() => worker.stop());
  const server = await startTestServer(t, {
    config: { worker: { url: `http://127.0.0.1:${ports.internalPort}`, secret: SECRET, public_url: `ws://127.0.0.1:${ports.wsPort}` } },
  });
  const op = await createOperator(server.db.pool, { callsign: 'DL3REV' });
  const topic = `station.${op.stationId}`;
  const token = await browserToken(server, topic, op.token);
  const before = await opened(t, worker.wsPort, topic, token);
  t.ok(await revokeToken(server.db.pool, op.tokenId), 'revoked');
  await endedByRevocation(t, before, 'the socket open at the revocation');

  await worker.stop();
  worker = await spawnWorkerProcess(ports);
  // Registered by someone else (another API process, another user's browser): the API process
  // under test sends nothing to the new worker, so it must notice the restart by itself.
  await registerTopic(worker.internalPort, topic);
  const early = await connectClient(worker.wsPort, topic);
  early.auth(token);
  t.teardown(() => early.close());
  const first = await early.next(5000);
  if (first.type === 'auth_ok') await endedByRevocation(t, early, 'a socket let in before the restarted worker heard of the revocation');
  else t.match(first, { type: 'error', code: 'unauthorized' }, 'the restarted worker refused the revoked browser token at once');
  await refused(t, worker.wsPort, topic, token, 'the restarted worker refuses a new socket with the revoked browser token');
});

const redis = await acquireRedis();
if (!redis) t.comment(`SKIP: ${NO_REDIS_REASON}`);

t.test('workers sharing Redis: every one closes its sockets, and one started later refuses the token too', { skip: redis ? false : NO_REDIS_REASON }, async (t) => {
  if (!redis) return;
  const prefix = uniquePrefix('revoke');
  const [a, b] = await Promise.all([spawnWorkerProcess({ redisUrl: redis.url, redisPrefix: prefix }), spawnWorkerProcess({ redisUrl: redis.url, redisPrefix: prefix })]);
  let c: Awaited<ReturnType<typeof spawnWorkerProcess>> | undefined;
  t.teardown(async () => {
    await Promise.all([a.stop(), b.stop(), c?.stop()]);
    await deleteKeys(redis.url, prefix);
    await redis.stop();
  });
  // The API knows worker A only: B hears of the revocation through Redis alone.
  const server = await startTestServer(t, {
    config: { worker: { urls: [`http://127.0.0.1:${a.internalPort}`], secret: SECRET, public_url: `ws://127.0.0.1:${a.wsPort}` } },
  });
  const op = await createOperator(server.db.pool, { callsign: 'DL2REV' });
  const topic = `station.${op.stationId}`;
  const token = await browserToken(server, topic, op.token);
  const onA = await opened(t, a.wsPort, topic, token);
  const onB = await opened(t, b.wsPort, topic, token);

  t.ok(await revokeToken(server.db.pool, op.tokenId), 'revoked (the statement `logbook token revoke` runs)');
  await endedByRevocation(t, onA, 'the socket on A');
  await endedByRevocation(t, onB, 'the socket on B');
  await refused(t, b.wsPort, topic, token, 'B refuses a new socket with it');

  c = await spawnWorkerProcess({ redisUrl: redis.url, redisPrefix: prefix });
  await refused(t, c.wsPort, topic, token, 'a worker started after the revocation refuses it too');
});
