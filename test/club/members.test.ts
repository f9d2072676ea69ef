import t from 'tap';
import type pg from 'pg';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { createUser } from '../../lib/accounts/users.js';
import { addClubMember } from '../../lib/accounts/clubs.js';
import { createToken } from '../../lib/auth/tokens.js';
import { HIDEABLE_USERDATA } from '../../lib/config.js';

let serial = 0;

/** A user with every personal field filled in, so that withholding is visible. */
async function person(db: pg.Pool, callsign: string) {
  serial += 1;
  const username = `${callsign.toLowerCase()}-${serial}-${process.pid}`;
  const userId = await createUser(db, {
    username, callsign, email: `${callsign.toLowerCase()}@example.org`, firstname: `First${serial}`, lastname: `Last${serial}`,
    locator: 'jo62qm', language: 'german',
  });
  return { userId, username, callsign };
}

async function clubWithMembers(server: TestServer) {
  const db = server.db.pool;
  const club = await createClub(db, 'DL0CLB');
  const officer = await club.memberToken(9, 'DL1OFF');
  const member3 = await club.memberToken(3, 'DL3MEM');
  const member6 = await club.memberToken(6, 'DL6ADI');
  const alice = await person(db, 'DL2ALI');
  await addClubMember(db, club.clubId, alice.userId, 3);
  return { club, officer, member3, member6, alice };
}

const ALWAYS = ['user_id', 'user_callsign', 'permission_level'];

t.test('club member list and single member', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const { club, officer, member3, member6, alice } = await clubWithMembers(server);
  const admin = await createOperator(db, { admin: true, callsign: 'DL9ADM' });
  const plain = await createOperator(db, { callsign: 'DL7PLN' });
  const otherClub = await createClub(db, 'DL0OTH');

  t.test('an officer lists every member, by callsign, with all fields', async (t) => {
    const res = await server.request('/api/v2/club', { token: officer.token });
    t.equal(res.status, 200);
    t.equal(res.body.meta.resource, 'club');
    t.equal(res.body.meta.count, 4);
    t.same(res.body.data.map((m: { user_callsign: string }) => m.user_callsign), ['DL1OFF', 'DL2ALI', 'DL3MEM', 'DL6ADI']);
    t.same(res.body.data.map((m: { permission_level: number }) => m.permission_level), [9, 3, 3, 6]);
    const record = res.body.data[1];
    t.strictSame(record, {
      user_id: alice.userId, user_callsign: 'DL2ALI', permission_level: 3,
      user_firstname: record.user_firstname, user_lastname: record.user_lastname, user_locator: 'JO62QM',
      user_name: alice.username, user_email: 'dl2ali@example.org', user_language: 'german',
    });
    t.match(record.user_firstname, /^First\d+$/);
    // Fields a member never filled in are null, not missing.
    t.equal(res.body.data[0].user_email, null);
  });

  t.test('GET /club/{user_id} shows one member; a non-member is 404', async (t) => {
    const one = await server.request(`/api/v2/club/${alice.userId}`, { token: officer.token });
    t.equal(one.status, 200);
    t.equal(one.body.data.user_callsign, 'DL2ALI');
    for (const id of [plain.userId, club.clubId, 999999]) {
      const res = await server.request(`/api/v2/club/${id}`, { token: officer.token });
      t.equal(res.status, 404, String(id));
      t.equal(res.body.error.code, 'not_found');
    }
  });

  t.test('members below officer level: 403 insufficient_club_permission with the levels', async (t) => {
    for (const [member, level] of [[member3, 3], [member6, 6]] as const) {
      for (const [method, path, json] of [
        ['GET', '/api/v2/club', undefined], ['GET', `/api/v2/club/${alice.userId}`, undefined],
        ['POST', '/api/v2/club', { user_id: plain.userId, permission_level: 3 }],
        ['PATCH', `/api/v2/club/${alice.userId}`, { permission_level: 6 }], ['DELETE', `/api/v2/club/${alice.userId}`, undefined],
      ] as const) {
        const res = await server.request(path, { method, token: member.token, json });
        t.equal(res.status, 403, `${level} ${method} ${path}`);
        t.equal(res.body.error.code, 'insufficient_club_permission');
        t.same(res.body.error.details, { required_level: 9, granted_level: level });
      }
    }
  });

  t.test("a regular user's personal token is 403 forbidden", async (t) => {
    for (const path of ['/api/v2/club', `/api/v2/club?club_id=${club.clubId}`, `/api/v2/club/${alice.userId}?club_id=${club.clubId}`]) {
      const res = await server.request(path, { token: plain.token });
      t.equal(res.status, 403, path);
      t.equal(res.body.error.code, 'forbidden');
    }
    // A personal token of the clubstation account itself is no officer either.
    const own = await createToken(db, { userId: club.clubId, createdBy: club.clubId, name: 'club itself', scopes: ['club:read'], expiresAt: null });
    const res = await server.request('/api/v2/club', { token: own.token });
    t.equal(res.status, 403);
    t.equal(res.body.error.code, 'forbidden');
  });

  t.test('an administrator names the club with club_id, and without it gets the clubstations', async (t) => {
    const clubs = await server.request('/api/v2/club', { token: admin.token });
    t.equal(clubs.status, 200);
    t.same(clubs.body.data, [
      { club_id: club.clubId, callsign: 'DL0CLB', member_count: 4 },
      { club_id: otherClub.clubId, callsign: 'DL0OTH', member_count: 0 },
    ]);
    t.equal(clubs.body.meta.count, 2);
    const members = await server.request(`/api/v2/club?club_id=${club.clubId}`, { token: admin.token });
    t.equal(members.body.meta.count, 4);
    t.equal(members.body.data[0].user_callsign, 'DL1OFF');
    t.same((await server.request(`/api/v2/club?club_id=${otherClub.clubId}`, { token: admin.token })).body.data, []);

    for (const [clubId, status, code] of [[String(plain.userId), 404, 'not_found'], ['999999', 404, 'not_found'], ['abc', 400, 'validation_error'], ['-1', 400, 'validation_error']] as const) {
      const res = await server.request(`/api/v2/club?club_id=${clubId}`, { token: admin.token });
      t.equal(res.status, status, clubId);
      t.equal(res.body.error.code, code);
    }
    const show = await server.request(`/api/v2/club/${alice.userId}`, { token: admin.token });
    t.equal(show.status, 400, 'a single member needs the club');
    t.equal(show.body.error.details.field, 'club_id');
  });

  t.test("a club token's club_id may only name its own club", async (t) => {
    t.equal((await server.request(`/api/v2/club?club_id=${club.clubId}`, { token: officer.token })).status, 200);
    const res = await server.request(`/api/v2/club?club_id=${otherClub.clubId}`, { token: officer.token });
    t.equal(res.status, 403);
    t.equal(res.body.error.code, 'forbidden');
  });

  t.test('scopes: GET club:read, POST and PATCH club:write, DELETE club:delete; PUT is 405', async (t) => {
    const readOnly = await createToken(db, { userId: club.clubId, createdBy: officer.userId, name: 'read', scopes: ['club:read'], expiresAt: null });
    t.equal((await server.request('/api/v2/club', { token: readOnly.token })).status, 200);
    for (const [method, path, scope] of [
      ['POST', '/api/v2/club', 'club:write'], ['PATCH', `/api/v2/club/${alice.userId}`, 'club:write'], ['DELETE', `/api/v2/club/${alice.userId}`, 'club:delete'],
    ] as const) {
      const res = await server.request(path, { method, token: readOnly.token, json: method === 'DELETE' ? undefined : { permission_level: 6 } });
      t.equal(res.status, 403, method);
      t.equal(res.body.error.code, 'insufficient_scope');
      t.equal(res.body.error.details.required_scope, scope);
    }
    const writeOnly = await createToken(db, { userId: club.clubId, createdBy: officer.userId, name: 'write', scopes: ['club:write'], expiresAt: null });
    const list = await server.request('/api/v2/club', { token: writeOnly.token });
    t.equal(list.status, 403);
    t.equal(list.body.error.details.required_scope, 'club:read');

    const put = await server.request('/api/v2/club', { method: 'PUT', token: officer.token, json: {} });
    t.equal(put.status, 405);
    t.equal(put.headers.get('allow'), 'GET, POST, PATCH, DELETE');
    const postItem = await server.request(`/api/v2/club/${alice.userId}`, { method: 'POST', token: officer.token, json: {} });
    t.equal(postItem.status, 405);
    t.equal(postItem.headers.get('allow'), 'GET, PATCH, DELETE');
  });
});

t.test('adding, changing and removing members', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const { club, officer, member3, alice } = await clubWithMembers(server);
  const admin = await createOperator(db, { admin: true });
  const bob = await person(db, 'DL4BOB');
  const carol = await person(db, 'DL5CAR');
  const otherClub = await createClub(db, 'DL0OTH');
  const post = (json: unknown, token = officer.token, query = '') => server.request(`/api/v2/club${query}`, { method: 'POST', token, json });
  const patch = (userId: number, json: unknown, token = officer.token) => server.request(`/api/v2/club/${userId}`, { method: 'PATCH', token, json });
  const remove = (userId: number, token = officer.token, query = '') => server.request(`/api/v2/club/${userId}${query}`, { method: 'DELETE', token });

  t.test('POST adds a member: 201, Location, the record; levels as numbers, strings or names', async (t) => {
    const res = await post({ user_id: bob.userId, permission_level: 3 });
    t.equal(res.status, 201);
    t.equal(res.headers.get('location'), `/api/v2/club/${bob.userId}`);
    t.equal(res.body.meta.method, 'POST');
    t.same(
      [res.body.data.user_id, res.body.data.user_callsign, res.body.data.permission_level, res.body.data.user_email],
      [bob.userId, 'DL4BOB', 3, 'dl4bob@example.org'],
    );
    const named = await post({ user_id: String(carol.userId), permission_level: 'Member_ADIF', notify: true });
    t.equal(named.status, 201);
    t.equal(named.body.data.permission_level, 6);
    const { rows } = await db.query('SELECT user_id, level FROM club_members WHERE club_id = $1 AND user_id = ANY($2) ORDER BY level', [club.clubId, [bob.userId, carol.userId]]);
    t.same(rows, [{ user_id: bob.userId, level: 3 }, { user_id: carol.userId, level: 6 }]);
  });

  t.test('POST refusals', async (t) => {
    const existing = await post({ user_id: alice.userId, permission_level: 9 });
    t.equal(existing.status, 409);
    t.equal(existing.body.error.code, 'conflict');
    t.equal((await db.query('SELECT level FROM club_members WHERE club_id = $1 AND user_id = $2', [club.clubId, alice.userId])).rows[0].level, 3, 'level untouched');

    const dave = await person(db, 'DL6DAV');
    for (const level of [5, 0, '12', 'boss', true, '']) {
      const res = await post({ user_id: dave.userId, permission_level: level });
      t.equal(res.status, 400, `level ${JSON.stringify(level)}`);
      t.equal(res.body.error.code, 'validation_error');
      if (level !== true) {
        t.same(res.body.error.details, { field: 'permission_level', allowed: [3, 6, 9, 'member', 'member_adif', 'officer'] });
      }
    }
    for (const [json, field] of [
      [{ permission_level: 3 }, 'user_id'], [{ user_id: dave.userId }, 'permission_level'], [{ user_id: 'abc', permission_level: 3 }, 'user_id'],
      [{ user_id: 0, permission_level: 3 }, 'user_id'], [{ user_id: otherClub.clubId, permission_level: 3 }, 'user_id'],
      [{ user_id: club.clubId, permission_level: 3 }, 'user_id'], [{ user_id: dave.userId, permission_level: 3, role: 'x' }, 'role'],
    ] as const) {
      const res = await post(json);
      t.equal(res.status, 400, JSON.stringify(json));
      t.equal(res.body.error.code, 'validation_error');
      t.equal(res.body.error.details.field, field);
    }
    const unknown = await post({ user_id: 999999, permission_level: 3 });
    t.equal(unknown.status, 404);
    t.equal(unknown.body.error.code, 'not_found');
    const own = await post({ user_id: officer.userId, permission_level: 3 });
    t.equal(own.status, 403);
    t.equal(own.body.error.code, 'forbidden');
    const nonScalar = await post({ user_id: [dave.userId], permission_level: 3 });
    t.equal(nonScalar.status, 400);
    const notMember = (await db.query('SELECT count(*)::int AS n FROM club_members WHERE user_id = $1', [dave.userId])).rows[0].n;
    t.equal(notMember, 0, 'nothing was added');
  });

  t.test('PATCH changes the level', async (t) => {
    const res = await patch(alice.userId, { permission_level: 9 });
    t.equal(res.status, 200);
    t.equal(res.body.data.permission_level, 9);
    t.equal(res.body.data.user_id, alice.userId);
    t.equal((await patch(alice.userId, { permission_level: 'member' })).body.data.permission_level, 3);
    // The member's token follows the new level at once.
    t.equal((await server.request('/api/v2/club', { token: member3.token })).status, 403);
    t.equal((await patch(member3.userId, { permission_level: 9 })).status, 200);
    t.equal((await server.request('/api/v2/club', { token: member3.token })).status, 200);
    t.equal((await patch(member3.userId, { permission_level: 3 })).status, 200);

    const notMember = await patch((await person(db, 'DL6EVE')).userId, { permission_level: 6 });
    t.equal(notMember.status, 404);
    t.equal(notMember.body.error.code, 'not_found');
    t.equal((await patch(999999, { permission_level: 6 })).status, 404);
    const bad = await patch(alice.userId, { permission_level: 7 });
    t.equal(bad.status, 400);
    t.same(bad.body.error.details.allowed, [3, 6, 9, 'member', 'member_adif', 'officer']);
    const missing = await patch(alice.userId, {});
    t.equal(missing.status, 400);
    t.equal(missing.body.error.details.field, 'permission_level');
    const own = await patch(officer.userId, { permission_level: 3 });
    t.equal(own.status, 403);
    t.equal(own.body.error.code, 'forbidden');
  });

  t.test('DELETE removes a member: 204, and their club token answers 403 club_access_revoked', async (t) => {
    t.equal((await server.request('/api/v2/token', { token: member3.token })).status, 200);
    const res = await remove(member3.userId);
    t.equal(res.status, 204);
    t.equal(res.text, '');
    const after = await server.request('/api/v2/token', { token: member3.token });
    t.equal(after.status, 403);
    t.equal(after.body.error.code, 'club_access_revoked');
    const again = await remove(member3.userId);
    t.equal(again.status, 404);
    t.equal(again.body.error.code, 'not_found');
    const own = await remove(officer.userId);
    t.equal(own.status, 403);
    t.equal(own.body.error.code, 'forbidden');
    t.equal((await server.request('/api/v2/club', { token: officer.token })).body.meta.count, 5);
  });

  t.test("an administrator's personal token manages any club with club_id", async (t) => {
    const frank = await person(db, 'DL8FRA');
    const noClub = await post({ user_id: frank.userId, permission_level: 3 }, admin.token);
    t.equal(noClub.status, 400);
    t.equal(noClub.body.error.details.field, 'club_id');
    const added = await post({ user_id: frank.userId, permission_level: 9 }, admin.token, `?club_id=${otherClub.clubId}`);
    t.equal(added.status, 201);
    t.equal(added.headers.get('location'), `/api/v2/club/${frank.userId}`);
    const changed = await server.request(`/api/v2/club/${frank.userId}?club_id=${otherClub.clubId}`, { method: 'PATCH', token: admin.token, json: { permission_level: 6 } });
    t.equal(changed.body.data.permission_level, 6);
    t.equal((await remove(frank.userId, admin.token, `?club_id=${otherClub.clubId}`)).status, 204);
    t.equal((await remove(frank.userId, admin.token, `?club_id=${otherClub.clubId}`)).status, 404);
    // The admin is no member of the club: acting on their own id is still refused.
    t.equal((await post({ user_id: admin.userId, permission_level: 3 }, admin.token, `?club_id=${otherClub.clubId}`)).status, 403);
  });
});

t.test('apiv2_hide_userdata withholds the listed fields from every member record', async (t) => {
  const fieldSets: string[][] = [[], ['user_email'], ['user_email', 'user_locator'], ['user_firstname', 'user_lastname', 'user_language'], [...HIDEABLE_USERDATA]];
  for (const hidden of fieldSets) {
    t.test(hidden.length ? hidden.join(', ') : 'nothing withheld', async (t) => {
      const server = await startTestServer(t, { config: { apiv2_hide_userdata: hidden } });
      const { officer, alice } = await clubWithMembers(server);
      const expected = [...ALWAYS, ...HIDEABLE_USERDATA.filter((f) => !hidden.includes(f))].sort();
      const list = await server.request('/api/v2/club', { token: officer.token });
      t.equal(list.body.data.length, 4);
      for (const record of list.body.data) t.strictSame(Object.keys(record).sort(), expected);
      const one = await server.request(`/api/v2/club/${alice.userId}`, { token: officer.token });
      t.strictSame(Object.keys(one.body.data).sort(), expected);
      const bob = await person(server.db.pool, 'DL4BOB');
      const added = await server.request('/api/v2/club', { method: 'POST', token: officer.token, json: { user_id: bob.userId, permission_level: 3 } });
      t.strictSame(Object.keys(added.body.data).sort(), expected);
      const changed = await server.request(`/api/v2/club/${bob.userId}`, { method: 'PATCH', token: officer.token, json: { permission_level: 6 } });
      t.strictSame(Object.keys(changed.body.data).sort(), expected);
      if (!hidden.includes('user_email')) t.equal(one.body.data.user_email, 'dl2ali@example.org');
    });
  }
});
