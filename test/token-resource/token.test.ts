import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { createToken, revokeToken } from '../../lib/auth/tokens.js';
import { SCOPES } from '../../lib/auth/scopes.js';

t.test('token resource', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const expiresAt = new Date('2099-03-04T05:06:07Z');
  const op = await createOperator(db, { callsign: 'DL1TOK', scopes: ['qso:read', 'station:read'], expiresAt });
  const get = (token: string) => server.request('/api/v2/token', { token });

  t.test('the current token: id, name, owner callsign, owner id, scopes, expiry; no value or hash', async (t) => {
    const res = await get(op.token);
    t.equal(res.status, 200);
    t.strictSame(res.body.data, {
      id: op.tokenId, name: 'test', owner: 'DL1TOK', user_id: op.userId, scopes: ['qso:read', 'station:read'], expires_at: '2099-03-04T05:06:07+00:00',
    });
    t.equal(res.body.meta.resource, 'token');
    t.notOk(res.text.includes(op.token.slice(4)), 'the token value is not echoed');
    const { rows } = await db.query('SELECT token_hash FROM api_tokens WHERE id = $1', [op.tokenId]);
    t.notOk(res.text.includes(rows[0].token_hash), 'nor its hash');
  });

  t.test('no scope is needed; a token that never expires has expires_at null', async (t) => {
    const narrow = await createToken(db, { userId: op.userId, createdBy: op.userId, name: 'stats only', scopes: ['statistic:read'], expiresAt: null });
    const res = await get(narrow.token);
    t.equal(res.status, 200);
    t.same([res.body.data.id, res.body.data.name, res.body.data.scopes, res.body.data.expires_at], [narrow.id, 'stats only', ['statistic:read'], null]);
  });

  t.test('a club token belongs to the club: owner and user_id are the clubstation', async (t) => {
    const club = await createClub(db, 'DL0TOK');
    const member = await club.memberToken(3);
    const res = await get(member.token);
    t.equal(res.status, 200);
    t.same([res.body.data.owner, res.body.data.user_id, res.body.data.name], ['DL0TOK', club.clubId, 'club']);
    t.same(res.body.data.scopes, [...SCOPES]);
  });

  t.test('invalid, revoked and expired tokens are refused as everywhere', async (t) => {
    t.equal((await server.request('/api/v2/token')).body.error.code, 'unauthorized');
    const revoked = await createToken(db, { userId: op.userId, createdBy: op.userId, name: 'gone', scopes: ['qso:read'], expiresAt: null });
    await revokeToken(db, revoked.id);
    t.equal((await get(revoked.token)).body.error.code, 'invalid_token');
    const expired = await createOperator(db, { expiresAt: new Date(Date.now() - 1000) });
    const res = await get(expired.token);
    t.equal(res.status, 401);
    t.equal(res.body.error.code, 'token_expired');
  });

  t.test('GET only; there is no item path', async (t) => {
    for (const method of ['POST', 'PATCH', 'DELETE']) {
      const res = await server.request('/api/v2/token', { method, token: op.token, json: {} });
      t.equal(res.status, 405, method);
      t.equal(res.headers.get('allow'), 'GET');
    }
    const item = await server.request(`/api/v2/token/${op.tokenId}`, { token: op.token });
    t.equal(item.status, 404);
    t.equal(item.body.error.code, 'not_found');
  });
});
