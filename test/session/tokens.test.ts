import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createStation } from '../../lib/accounts/stations.js';
import { createUser } from '../../lib/accounts/users.js';
import { addClubMember } from '../../lib/accounts/clubs.js';
import { SCOPES } from '../../lib/auth/scopes.js';
import { AppClient, userWithPassword } from './helpers.js';

t.test('tokens, keys and the club switch from the app', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const ann = await userWithPassword(db, { callsign: 'DL1ANN' });
  const stationId = await createStation(db, { userId: ann.userId, name: 'Home', callsign: 'DL1ANN', gridsquare: 'JO62QM' });
  const app = new AppClient(server);
  t.equal((await app.signIn(ann.username)).status, 200);

  t.test('the scopes offered: SPEC\'s list with a sentence each', async (t) => {
    const res = await app.call('GET', '/app/scopes');
    t.equal(res.status, 200);
    t.same(res.body.scopes.map((scope: { name: string }) => scope.name), [...SCOPES]);
    t.match(res.body.scopes[0], { name: 'qso:read', description: 'Read QSOs', grantable: true });
    t.match(res.body.scopes.find((scope: { name: string }) => scope.name === 'club:read'), { grantable: false });
  });

  t.test('create → used on /api/v2/qso → listed → revoked → 401 at once', async (t) => {
    const created = await app.call('POST', '/app/tokens', { json: { name: ' Logger ', scopes: ['qso:read', 'qso:write', 'qso:read'], expires: '30' } });
    t.equal(created.status, 201);
    t.match(created.body, { id: Number, name: 'Logger', scopes: ['qso:read', 'qso:write'], token: /^wl2_[0-9a-f]{40}$/ });
    const days = (Date.parse(created.body.expires_at) - Date.now()) / 86_400_000;
    t.ok(days > 29.9 && days <= 30, 'expires in 30 days');
    const { token, id } = created.body;
    const qso = { station_profile_id: stationId, call: 'K1ABC', band: '20m', mode: 'SSB', qso_date: '2026-12-01', time_on: '12:00:00' };
    t.equal((await server.request('/api/v2/qso', { method: 'POST', token, json: qso })).status, 201);
    t.equal((await server.request('/api/v2/qso', { token })).status, 200);
    t.equal((await server.request('/api/v2/station', { token })).body.error.code, 'insufficient_scope', 'only its scopes');

    const listed = await app.call('GET', '/app/tokens');
    t.equal(listed.body.tokens.length, 1, 'the session\'s own token is not listed');
    t.match(listed.body.tokens[0], { id, name: 'Logger', scopes: ['qso:read', 'qso:write'], club_id: null, created_at: String, expires_at: created.body.expires_at });
    t.notOk(listed.text.includes(token.slice(4)), 'the value is shown once only');

    t.equal((await app.call('DELETE', `/app/tokens/${id}`)).status, 204);
    const refused = await server.request('/api/v2/qso', { token });
    t.equal(refused.status, 401);
    t.equal(refused.body.error.code, 'invalid_token');
    t.strictSame((await app.call('GET', '/app/tokens')).body.tokens, []);
    t.equal((await app.call('DELETE', `/app/tokens/${id}`)).status, 404, 'once');
  });

  t.test('bad input is refused with the field named; nobody else\'s token can be revoked', async (t) => {
    const cases: [unknown, string][] = [
      [{ name: '', scopes: ['qso:read'], expires: '30' }, 'name'],
      [{ name: 'x', scopes: [], expires: '30' }, 'scopes'],
      [{ name: 'x', scopes: ['qso:fly'], expires: '30' }, 'scopes'],
      [{ name: 'x', scopes: ['qso:read'], expires: '7' }, 'expires'],
    ];
    for (const [json, field] of cases) {
      const res = await app.call('POST', '/app/tokens', { json });
      t.equal(res.status, 400, JSON.stringify(json));
      t.equal(res.body.error.details.field, field);
    }
    const club = await app.call('POST', '/app/tokens', { json: { name: 'x', scopes: ['club:read'], expires: 'never' } });
    t.equal(club.status, 403, 'club scopes are for administrators on a personal token');
    const other = await userWithPassword(db);
    const otherApp = new AppClient(server);
    await otherApp.signIn(other.username);
    const theirs = await otherApp.call('POST', '/app/tokens', { json: { name: 'theirs', scopes: ['qso:read'], expires: 'never' } });
    t.equal(theirs.body.expires_at, null);
    t.equal((await app.call('DELETE', `/app/tokens/${theirs.body.id}`)).status, 404);
    t.equal((await server.request('/api/v2/token', { token: theirs.body.token })).status, 200, 'still valid');
  });

  t.test('v1 keys: create (read-only or read/write), list with a hint, delete', async (t) => {
    const created = await app.call('POST', '/app/keys', { json: { rights: 'r' } });
    t.equal(created.status, 201);
    t.match(created.body, { id: Number, key: /^wl[0-9a-f]{32}$/, rights: 'r' });
    const { key, id } = created.body;
    t.same((await server.request(`/api/check_auth/${key}`)).body, { status: 'valid', rights: 'r' });
    const listed = await app.call('GET', '/app/keys');
    t.match(listed.body.keys, [{ id, key_hint: `wl…${key.slice(-4)}`, rights: 'r', created_at: String, last_used_at: String }]);
    t.notOk(listed.text.includes(key));
    t.equal((await app.call('POST', '/app/keys', { json: { rights: 'x' } })).status, 400);
    t.equal((await app.call('DELETE', `/app/keys/${id}`)).status, 204);
    t.equal((await server.request(`/api/check_auth/${key}`)).status, 401, 'refused at once');
    t.strictSame((await app.call('GET', '/app/keys')).body.keys, []);
  });

  t.test('a member switches into their clubstation; tokens made there belong to the club', async (t) => {
    const clubId = await createUser(db, { username: `club-${process.pid}`, callsign: 'DL0CLB', isClub: true });
    await createStation(db, { userId: clubId, name: 'Club site', callsign: 'DL0CLB', gridsquare: 'JO62QM' });
    await addClubMember(db, clubId, ann.userId, 3);

    const session = await app.call('GET', '/app/session');
    t.same(session.body.clubs, [{ club_id: clubId, callsign: 'DL0CLB', level: 3 }]);
    const switched = await app.call('POST', '/app/acting-as', { json: { club_id: clubId } });
    t.equal(switched.status, 200);
    t.same(switched.body.acting_as, { club_id: clubId, callsign: 'DL0CLB', level: 3 });
    const me = await server.request('/api/v2/token', { token: switched.body.api_token });
    t.equal(me.body.data.user_id, clubId, 'the session token acts for the club');
    t.notOk(me.body.data.scopes.some((scope: string) => scope.startsWith('logbook:') || scope.startsWith('club:')), 'no officer scopes below officer');
    t.equal((await server.request('/api/v2/token', { token: session.body.api_token })).status, 401, 'the personal session token is replaced');

    const officerOnly = await app.call('POST', '/app/tokens', { json: { name: 'books', scopes: ['logbook:write'], expires: '90' } });
    t.equal(officerOnly.status, 403);
    t.equal(officerOnly.body.error.code, 'insufficient_club_permission');
    t.equal(officerOnly.body.error.details.required_level, 9);
    const made = await app.call('POST', '/app/tokens', { json: { name: 'club logger', scopes: ['qso:read', 'qso:write'], expires: '90' } });
    t.equal(made.status, 201);
    const owner = await server.request('/api/v2/token', { token: made.body.token });
    t.same([owner.body.data.user_id, owner.body.data.owner], [clubId, 'DL0CLB'], 'the token belongs to the club');
    const { rows } = await db.query('SELECT created_by FROM api_tokens WHERE id = $1', [made.body.id]);
    t.equal(rows[0].created_by, ann.userId, 'made by the member');
    t.match((await app.call('GET', '/app/tokens')).body.tokens, [{ id: made.body.id, club_id: clubId }]);

    await db.query('DELETE FROM club_members WHERE club_id = $1 AND user_id = $2', [clubId, ann.userId]);
    const withdrawn = await app.call('GET', '/app/session', { csrf: false });
    t.same([withdrawn.body.acting_as, withdrawn.body.clubs], [null, []], 'a withdrawn membership puts the session back on the own account');
    t.equal((await server.request('/api/v2/token', { token: withdrawn.body.api_token })).body.data.user_id, ann.userId);
    await addClubMember(db, clubId, ann.userId, 3);
    await app.call('POST', '/app/acting-as', { json: { club_id: clubId } });

    const back = await app.call('POST', '/app/acting-as', { json: { club_id: null } });
    t.equal(back.body.acting_as, null);
    t.equal((await server.request('/api/v2/token', { token: back.body.api_token })).body.data.user_id, ann.userId);
    t.notOk((await app.call('GET', '/app/tokens')).body.tokens.some((token: { id: number }) => token.id === made.body.id), 'the club\'s token is listed under the club only');

    const stranger = await userWithPassword(db);
    const strangerApp = new AppClient(server);
    await strangerApp.signIn(stranger.username);
    const refused = await strangerApp.call('POST', '/app/acting-as', { json: { club_id: clubId } });
    t.equal(refused.status, 403, 'a non-member cannot switch in');
    t.equal(refused.body.error.code, 'forbidden');
    t.equal((await strangerApp.call('POST', '/app/acting-as', { json: { club_id: 'x' } })).status, 400);
  });
});
