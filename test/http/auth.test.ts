import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { createToken, revokeToken } from '../../lib/auth/tokens.js';
import { createKey } from '../../lib/auth/keys.js';
import { hashSecret } from '../../lib/auth/secrets.js';
import { removeClubMember } from '../../lib/accounts/clubs.js';
import { requireClubLevel } from '../../lib/http/v2/principal.js';
import type { ResourceDefinition } from '../../lib/http/v2/resource.js';

const probes: ResourceDefinition[] = [
  {
    name: 'qso',
    description: 'probe',
    scoped: true,
    list: { summary: 'list', handler: async ({ principal }) => ({ data: { user: principal.userId, club: principal.club } }) },
    create: { summary: 'create', handler: async () => ({ data: {}, status: 201 }) },
  },
  {
    name: 'club',
    description: 'officer-only probe',
    scoped: true,
    list: {
      summary: 'list',
      handler: async ({ principal }) => {
        requireClubLevel(principal, 9);
        return { data: [] };
      },
    },
  },
  { name: 'token', description: 'no-scope probe', scoped: false, list: { summary: 'me', handler: async ({ principal }) => ({ data: { id: principal.tokenId } }) } },
];

t.test('v2 authentication', async (t) => {
  const server = await startTestServer(t, { resources: probes });
  const db = server.db.pool;
  const op = await createOperator(db, { scopes: ['qso:read'] });

  t.test('missing and garbage credentials', async (t) => {
    const none = await server.request('/api/v2/qso');
    t.equal(none.status, 401);
    t.equal(none.body.error.code, 'unauthorized');
    for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', 'Token abc x', 'Bearer  ']) {
      const res = await server.request('/api/v2/qso', { headers: { authorization: header } });
      t.equal(res.status, 401, JSON.stringify(header));
      t.equal(res.body.error.code, 'unauthorized');
    }
    for (const token of ['abc', 'wl2_doesnotexist', 'Bearer-ish', 'wl2_' + '0'.repeat(40)]) {
      const res = await server.request('/api/v2/qso', { token });
      t.equal(res.status, 401, token);
      t.equal(res.body.error.code, 'invalid_token');
    }
  });

  t.test('a v1 key is not a v2 token', async (t) => {
    const { key } = await createKey(db, op.userId, 'rw');
    const res = await server.request('/api/v2/qso', { token: key });
    t.equal(res.status, 401);
    t.equal(res.body.error.code, 'invalid_token');
    t.match(res.body.error.message, /v1/);
  });

  t.test('valid token by Bearer and by X-API-Key; scopes', async (t) => {
    t.equal((await server.request('/api/v2/qso', { token: op.token })).status, 200);
    t.equal((await server.request('/api/v2/qso', { headers: { 'x-api-key': ` ${op.token} ` } })).status, 200);
    t.equal((await server.request('/api/v2/qso', { headers: { authorization: `bEaReR ${op.token}` } })).status, 200);
    const write = await server.request('/api/v2/qso', { method: 'POST', token: op.token, json: {} });
    t.equal(write.status, 403);
    t.equal(write.body.error.code, 'insufficient_scope');
    t.equal(write.body.error.details.required_scope, 'qso:write');
    t.equal((await server.request('/api/v2/token', { token: op.token })).status, 200, 'token resource needs no scope');
  });

  t.test('revoked and expired tokens', async (t) => {
    const revoked = await createToken(db, { userId: op.userId, createdBy: op.userId, name: 'r', scopes: ['qso:read'], expiresAt: null });
    t.equal((await server.request('/api/v2/qso', { token: revoked.token })).status, 200);
    await revokeToken(db, revoked.id);
    const r = await server.request('/api/v2/qso', { token: revoked.token });
    t.equal(r.status, 401);
    t.equal(r.body.error.code, 'invalid_token');
    const expired = await createToken(db, { userId: op.userId, createdBy: op.userId, name: 'e', scopes: ['qso:read'], expiresAt: new Date(Date.now() - 1000) });
    const e = await server.request('/api/v2/qso', { token: expired.token });
    t.equal(e.status, 401);
    t.equal(e.body.error.code, 'token_expired');
  });

  t.test('a use is recorded in last_used_at, at most once a minute per token or key', async (t) => {
    const used = await createToken(db, { userId: op.userId, createdBy: op.userId, name: 'u', scopes: ['qso:read'], expiresAt: null });
    const lastUse = async () => (await db.query('SELECT last_used_at, xmin::text FROM api_tokens WHERE id = $1', [used.id])).rows[0];
    t.equal((await lastUse()).last_used_at, null);
    t.equal((await server.request('/api/v2/qso', { token: used.token })).status, 200);
    const first = await lastUse();
    t.ok(first.last_used_at instanceof Date, 'the first use is recorded');
    await Promise.all(Array.from({ length: 5 }, () => server.request('/api/v2/qso', { token: used.token })));
    t.same(await lastUse(), first, 'uses within the minute do not rewrite the row');
    await db.query("UPDATE api_tokens SET last_used_at = now() - interval '2 minutes' WHERE id = $1", [used.id]);
    t.equal((await server.request('/api/v2/qso', { token: used.token })).status, 200);
    t.ok((await lastUse()).last_used_at.getTime() > Date.now() - 60_000, 'a use after the minute is recorded again');
    await revokeToken(db, used.id);
    await db.query("UPDATE api_tokens SET last_used_at = now() - interval '2 minutes' WHERE id = $1", [used.id]);
    const before = await lastUse();
    t.equal((await server.request('/api/v2/qso', { token: used.token })).status, 401);
    t.same(await lastUse(), before, 'a refused token is not marked used');

    const { key } = await createKey(db, op.userId, 'r');
    const keyUse = async () => (await db.query('SELECT last_used_at, xmin::text FROM api_keys WHERE key_hash = $1', [hashSecret(key)])).rows[0];
    const auth = () => server.request(`/api/auth/${key}`);
    await auth();
    const keyFirst = await keyUse();
    t.ok(keyFirst.last_used_at instanceof Date, 'a v1 key use is recorded');
    await Promise.all(Array.from({ length: 5 }, auth));
    t.same(await keyUse(), keyFirst, 'and not rewritten within the minute');
  });

  t.test('tokens are stored only as hashes', async (t) => {
    const { rows } = await db.query<{ token_hash: string }>('SELECT token_hash FROM api_tokens');
    t.ok(rows.length >= 1);
    const dump = JSON.stringify((await db.query('SELECT * FROM api_tokens')).rows);
    t.notOk(dump.includes(op.token), 'no plain token value in the table');
    t.notOk(dump.includes(op.token.slice(4)), 'not even without its prefix');
    for (const row of rows) t.match(row.token_hash, /^[0-9a-f]{64}$/);
  });

  t.test('club tokens: level, officer requirement, revoked membership', async (t) => {
    const club = await createClub(db);
    const member = await club.memberToken(3);
    const officer = await club.memberToken(9);
    const asMember = await server.request('/api/v2/qso', { token: member.token });
    t.equal(asMember.status, 200);
    t.equal(asMember.body.data.user, club.clubId, 'a club token acts for the club');
    t.equal(asMember.body.data.club.level, 3);
    const denied = await server.request('/api/v2/club', { token: member.token });
    t.equal(denied.status, 403);
    t.equal(denied.body.error.code, 'insufficient_club_permission');
    t.equal(denied.body.error.details.required_level, 9);
    t.equal(denied.body.error.details.granted_level, 3);
    t.equal((await server.request('/api/v2/club', { token: officer.token })).status, 200);
    await removeClubMember(db, club.clubId, member.userId);
    for (const path of ['/api/v2/qso', '/api/v2/token', '/api/v2/club']) {
      const res = await server.request(path, { token: member.token });
      t.equal(res.status, 403, path);
      t.equal(res.body.error.code, 'club_access_revoked');
    }
  });
});
