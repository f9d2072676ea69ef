import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { radioResource } from '../../lib/http/v2/resources/radio/index.js';
import type { EventPublisher } from '../../lib/services.js';

// any: the payloads are JSON the test inspects member by member.
const published: { topic: string; payload: any }[] = [];
const recorder: EventPublisher = { publish: (topic, payload) => published.push({ topic, payload }), close: async () => undefined };

t.test('radio resource', async (t) => {
  const server = await startTestServer(t, { resources: [radioResource], events: recorder });
  const db = server.db.pool;
  const op = await createOperator(db);
  const other = await createOperator(db);
  const report = (json: unknown, token = op.token) => server.request('/api/v2/radio', { method: 'POST', token, json });
  let radioId = 0;

  t.test('a new radio name: 201 with Location, Hz integers, rig modes folded, live updates published', async (t) => {
    published.length = 0;
    const before = Date.now();
    const res = await report({ radio: 'IC-7300', frequency: 14074000, frequency_rx: '14076000', mode: 'usb-d', mode_rx: 'non', power: '100', prop_mode: '', sat_name: null });
    t.equal(res.status, 201);
    radioId = res.body.data.id;
    t.equal(res.headers.get('location'), `/api/v2/radio/${radioId}`);
    t.same(Object.keys(res.body.data), ['id', 'radio', 'frequency', 'frequency_rx', 'mode', 'mode_rx', 'power', 'prop_mode', 'sat_name', 'updated_at']);
    t.match(res.body.data, { radio: 'IC-7300', frequency: 14074000, frequency_rx: 14076000, mode: 'USB', mode_rx: null, power: 100, prop_mode: null, sat_name: null });
    t.match(res.body.data.updated_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    t.same(published.map((p) => p.topic), [`radio.${radioId}`, `radios_user.${op.userId}`]);
    const status = published[0]!.payload.radio_status;
    t.same(published[0]!.payload, { type: 'radio_updated', radio_status: status });
    t.same(published[1]!.payload, { type: 'radio_updated', radio_id: radioId, radio_status: status });
    t.same({ ...status, timestamp: undefined }, { ...res.body.data, timestamp: undefined });
    t.ok(status.timestamp >= Math.floor(before / 1000) * 1000 && status.timestamp <= Date.now(), 'timestamp in ms');
  });

  t.test('the same name again: 200, only the sent members change', async (t) => {
    published.length = 0;
    const res = await report({ radio: 'IC-7300', frequency: 7074000, prop_mode: 'SAT', sat_name: 'QO-100' });
    t.equal(res.status, 200);
    t.equal(res.headers.get('location'), null);
    t.match(res.body.data, { id: radioId, frequency: 7074000, frequency_rx: 14076000, mode: 'USB', power: 100, prop_mode: 'SAT', sat_name: 'QO-100' });
    t.equal(published.length, 2);
    const cleared = await report({ radio: 'IC-7300', mode: '', power: null });
    t.match(cleared.body.data, { mode: null, power: null, frequency: 7074000 });
    t.equal((await db.query('SELECT count(*)::int AS n FROM radios WHERE user_id = $1', [op.userId])).rows[0].n, 1);
  });

  t.test('limits: every broken one is named in details.invalid', async (t) => {
    const missing = await report({ frequency: 1 });
    t.equal(missing.status, 400);
    t.same(missing.body.error.details, { missing: ['radio'] });
    const cases: [Record<string, unknown>, string[]][] = [
      [{ radio: 'R'.repeat(251) }, ['radio']],
      [{ radio: true }, ['radio']],
      [{ radio: 'R', frequency: 14.074 }, ['frequency']],
      [{ radio: 'R', frequency: '14.074M' }, ['frequency']],
      [{ radio: 'R', frequency_rx: -1 }, ['frequency_rx']],
      [{ radio: 'R', power: 'high' }, ['power']],
      [{ radio: 'R', mode: 'ABCDEFGHIJK' }, ['mode']],
      [{ radio: 'R', mode_rx: 7 }, ['mode_rx']],
      [{ radio: 'R', sat_name: 'S'.repeat(256) }, ['sat_name']],
      [{ radio: 'R', cat_url: 'http://127.0.0.1:5555/' }, ['cat_url']],
      [{ radio: 'R', frequency: 'x', mode: 'ABCDEFGHIJK', power: 1.5 }, ['frequency', 'mode', 'power']],
    ];
    for (const [json, invalid] of cases) {
      const res = await report(json);
      t.equal(res.status, 400, JSON.stringify(json).slice(0, 60));
      t.equal(res.body.error.code, 'validation_error');
      t.same(res.body.error.details, { invalid });
    }
    const unknown = await report({ radio: 'R', uplink_freq: 1 });
    t.equal(unknown.status, 400);
    t.equal(unknown.body.error.details.field, 'uplink_freq');
    t.equal((await db.query(`SELECT count(*)::int AS n FROM radios WHERE radio = 'R'`)).rows[0].n, 0, 'nothing stored');
    const longest = await report({ radio: 'R'.repeat(250), mode: 'ABCDEFGHIJ', sat_name: 'S'.repeat(255) });
    t.equal(longest.status, 201);
  });

  t.test('list, show and delete are the owner\'s only', async (t) => {
    const list = await server.request('/api/v2/radio', { token: op.token });
    t.equal(list.status, 200);
    t.same(list.body.data.map((r: { radio: string }) => r.radio), ['IC-7300', 'R'.repeat(250)]);
    t.equal(list.body.meta.count, 2);
    t.same((await server.request('/api/v2/radio', { token: other.token })).body.data, []);
    const show = await server.request(`/api/v2/radio/${radioId}`, { token: op.token });
    t.same(show.body.data, list.body.data[0]);
    t.equal((await server.request(`/api/v2/radio/${radioId}`, { token: other.token })).status, 404);
    const foreignDelete = await server.request(`/api/v2/radio/${radioId}`, { method: 'DELETE', token: other.token });
    t.equal(foreignDelete.status, 404);
    t.equal(foreignDelete.body.error.code, 'not_found');
    const del = await server.request(`/api/v2/radio/${radioId}`, { method: 'DELETE', token: op.token });
    t.equal(del.status, 204);
    t.equal(del.text, '');
    t.equal((await server.request(`/api/v2/radio/${radioId}`, { token: op.token })).status, 404);
  });

  t.test('no PATCH: 405 with the supported verbs', async (t) => {
    for (const method of ['PATCH', 'PUT']) {
      const res = await server.request('/api/v2/radio/1', { method, token: op.token, json: { frequency: 1 } });
      t.equal(res.status, 405, method);
      t.equal(res.headers.get('allow'), 'GET, POST, DELETE');
      t.equal(res.body.error.code, 'method_not_allowed');
    }
  });

  t.test('scopes per verb', async (t) => {
    const reader = await createOperator(db, { scopes: ['radio:read'] });
    const writer = await createOperator(db, { scopes: ['radio:write'] });
    const cases: [string, string, string, unknown, string][] = [
      [writer.token, 'GET', '/api/v2/radio', undefined, 'radio:read'],
      [reader.token, 'POST', '/api/v2/radio', { radio: 'X' }, 'radio:write'],
      [writer.token, 'DELETE', '/api/v2/radio/1', undefined, 'radio:delete'],
    ];
    for (const [token, method, path, json, scope] of cases) {
      const res = await server.request(path, { method, token, json });
      t.equal(res.status, 403, method);
      t.equal(res.body.error.code, 'insufficient_scope');
      t.same(res.body.error.details, { required_scope: scope });
    }
  });

  t.test('club tokens: members see their own radios; a shared rig follows whoever reports it', async (t) => {
    const club = await createClub(db);
    const alice = await club.memberToken(3);
    const bob = await club.memberToken(6);
    const officer = await club.memberToken(9);
    published.length = 0;
    const made = await report({ radio: 'Club FT-991', frequency: 3573000 }, alice.token);
    t.equal(made.status, 201);
    t.equal(published[1]!.topic, `radios_user.${club.clubId}`, 'published for the club account');
    const row = await db.query('SELECT user_id, operator_id FROM radios WHERE id = $1', [made.body.data.id]);
    t.same(row.rows[0], { user_id: club.clubId, operator_id: alice.userId });
    await report({ radio: 'Bob handheld' }, bob.token);

    const names = async (token: string) => (await server.request('/api/v2/radio', { token })).body.data.map((r: { radio: string }) => r.radio);
    t.same(await names(alice.token), ['Club FT-991']);
    t.same(await names(bob.token), ['Bob handheld']);
    t.same(await names(officer.token), ['Bob handheld', 'Club FT-991']);
    t.equal((await server.request(`/api/v2/radio/${made.body.data.id}`, { token: bob.token })).status, 404);
    t.equal((await server.request(`/api/v2/radio/${made.body.data.id}`, { method: 'DELETE', token: bob.token })).status, 404);

    const takeover = await report({ radio: 'Club FT-991', frequency: 7040000 }, bob.token);
    t.equal(takeover.status, 200);
    t.equal(takeover.body.data.id, made.body.data.id);
    t.same(await names(alice.token), []);
    t.same(await names(bob.token), ['Bob handheld', 'Club FT-991']);
    t.equal((await server.request(`/api/v2/radio/${made.body.data.id}`, { method: 'DELETE', token: officer.token })).status, 204);
  });
});
