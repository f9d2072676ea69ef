import t from 'tap';
import { randomBytes } from 'node:crypto';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { hashSecret } from '../../lib/auth/secrets.js';
import { v1Key } from '../v1/helpers.js';

const guess = () => 'wl' + randomBytes(7).toString('hex').slice(0, 13);
const authLimit = { api_rate_limits: { api_v2_auth: { requests: 3, window: 60 } } };
const statuses = (responses: { status: number }[]) => responses.map((r) => r.status);

t.test('v1: refused keys count per client address, whatever key is presented', async (t) => {
  const server = await startTestServer(t, { config: authLimit });
  const op = await createOperator(server.db.pool);
  const key = await v1Key(server.db.pool, op.userId, 'rw');
  // Accepted keys are refunded: any number of them leaves the bucket empty.
  for (let i = 0; i < 5; i++) t.equal((await server.request(`/api/check_auth/${key}`)).status, 200);
  const guesses = [];
  for (let i = 0; i < 6; i++) guesses.push(await server.request(`/api/check_auth/${guess()}`));
  t.same(statuses(guesses), [401, 401, 401, 429, 429, 429], 'one bucket per address, not per presented key');
  t.equal(guesses[3]!.body.reason, 'Rate limit exceeded. Try again in 60 seconds.');
  t.equal(guesses[3]!.headers.get('retry-after'), '60');
  // The bucket guards every call, body keys included, and a right key too while it is full.
  const body = await server.request('/api/version', { method: 'POST', json: { key: guess() } });
  t.equal(body.status, 429);
  t.equal((await server.request(`/api/check_auth/${key}`)).status, 429);
  t.equal((await server.request('/api/version', { method: 'POST', json: {} })).status, 401, 'no key presented: no attempt');
});

t.test('v1: concurrent guesses cannot slip under the limit', async (t) => {
  const server = await startTestServer(t, { config: authLimit });
  const answers = await Promise.all(Array.from({ length: 20 }, () => server.request('/api/version', { method: 'POST', json: { key: guess() } })));
  t.equal(answers.filter((a) => a.status === 401).length, 3);
  t.equal(answers.filter((a) => a.status === 429).length, 17);
});

t.test('/live/token is behind the pre-authentication bucket', async (t) => {
  const server = await startTestServer(t, { config: authLimit });
  const answers = [];
  for (let i = 0; i < 5; i++) answers.push(await server.request('/live/token?topic=qsos.user.1', { token: `wl2_${randomBytes(20).toString('hex')}` }));
  t.same(statuses(answers), [401, 401, 401, 429, 429]);
  t.equal(answers[3]!.body.error.code, 'rate_limited');
});

t.test('new v1 keys carry 128 random bits; keys of the old shape keep working', async (t) => {
  const server = await startTestServer(t);
  const op = await createOperator(server.db.pool);
  t.match(await v1Key(server.db.pool, op.userId, 'r'), /^wl[0-9a-f]{32}$/);
  const old = 'wl0123456789abc';
  await server.db.pool.query("INSERT INTO api_keys (user_id, created_by, key_hash, rights) VALUES ($1, $1, $2, 'r')", [op.userId, hashSecret(old)]);
  t.same((await server.request(`/api/check_auth/${old}`)).body, { status: 'valid', rights: 'r' });
});

t.test('trust_proxy: the address the trusted proxy appended, never one the client wrote', async (t) => {
  const server = await startTestServer(t, { config: { ...authLimit, trust_proxy: true } });
  const answers = [];
  for (let i = 0; i < 6; i++) {
    // The client writes any X-Forwarded-For it likes; the proxy appends the address it saw.
    const forged = `203.0.113.${i}`;
    answers.push(await server.request('/api/v2/qso', { token: 'wl2_nope', headers: { 'x-forwarded-for': `${forged}, 198.51.100.7` } }));
  }
  t.same(statuses(answers), [401, 401, 401, 429, 429, 429]);
  t.equal((await server.request('/api/v2/qso', { token: 'wl2_nope', headers: { 'x-forwarded-for': '198.51.100.8' } })).status, 401, 'another client has its own bucket');
});

t.test('trust_proxy: N trusted proxies take the N-th entry from the right', async (t) => {
  const server = await startTestServer(t, { config: { ...authLimit, trust_proxy: 2 } });
  const answers = [];
  for (let i = 0; i < 5; i++) {
    answers.push(await server.request('/api/v2/qso', { token: 'wl2_nope', headers: { 'x-forwarded-for': `203.0.113.${i}, 198.51.100.7, 10.0.0.2` } }));
  }
  t.same(statuses(answers), [401, 401, 401, 429, 429]);
  const other = await server.request('/api/v2/qso', { token: 'wl2_nope', headers: { 'x-forwarded-for': '203.0.113.1, 198.51.100.9, 10.0.0.2' } });
  t.equal(other.status, 401);
});
