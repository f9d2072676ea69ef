import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import type { EventPublisher } from '../../lib/services.js';
import { bothPaths, post, v1Key } from './helpers.js';

t.test('api/radio', async (t) => {
  const published: { topic: string; payload: unknown }[] = [];
  const events: EventPublisher = { publish: (topic, payload) => void published.push({ topic, payload }), close: async () => undefined };
  const server = await startTestServer(t, { events });
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1RIG' });
  const key = await v1Key(db, op.userId, 'rw');
  const radio = async (name: string) => (await db.query('SELECT * FROM radios WHERE user_id = $1 AND radio = $2', [op.userId, name])).rows[0];

  t.test('basic state, rig modes folded, both path forms, published like a v2 update', async (t) => {
    const [plain, indexed] = bothPaths('radio');
    const res = await post(server, plain, { key, radio: 'FT-950', frequency: 14075000, mode: 'USB-D', power: '50', timestamp: '2012/04/07 16:47' });
    t.equal(res.status, 200);
    t.same(res.body, { status: 'success' });
    t.match(await radio('FT-950'), { frequency: '14075000', mode: 'USB', power: 50, operator_id: op.userId });
    const row = await radio('FT-950');
    t.same(published.map((p) => p.topic), [`radio.${row.id}`, `radios_user.${op.userId}`]);
    t.match(published[0]!.payload, { type: 'radio_updated', radio_status: { id: row.id, radio: 'FT-950', frequency: 14075000, mode: 'USB' } });

    const update = await post(server, indexed, { key, radio: 'FT-950', frequency: '7030000', mode: 'cw-u', frequency_rx: 7031000, mode_rx: 'CWL' });
    t.equal(update.status, 200);
    t.match(await radio('FT-950'), { frequency: '7030000', mode: 'CW', frequency_rx: '7031000', mode_rx: 'CW', power: 50 });
    // Partial: an older client's basic report keeps the extended state.
    await post(server, plain, { key, radio: 'FT-950', frequency: 7040000, mode: 'RTTY-R' });
    t.match(await radio('FT-950'), { frequency: '7040000', mode: 'RTTY', frequency_rx: '7031000', power: 50 });
  });

  t.test('satellite programs: up/downlink stand in for TX/RX; a satellite name means prop_mode SAT', async (t) => {
    const res = await post(server, '/api/radio', {
      key, radio: 'SATPC32', uplink_freq: '2400210000', downlink_freq: '10489710000', uplink_mode: 'SSB', downlink_mode: 'SSB',
      satmode: 'S/X', satname: 'QO-100', power: '', cat_url: 'http://127.0.0.1:54321',
    });
    t.equal(res.status, 200);
    t.match(await radio('SATPC32'), {
      frequency: '2400210000', frequency_rx: '10489710000', mode: 'SSB', mode_rx: 'SSB', uplink_freq: '2400210000',
      downlink_freq: '10489710000', sat_name: 'QO-100', sat_mode: 'S/X', prop_mode: 'SAT', power: null, cat_url: 'http://127.0.0.1:54321',
    });
    await post(server, '/api/radio', { key, radio: 'SAT2', frequency: 145900000, sat_name: 'ISS', prop_mode: 'SAT' });
    t.match(await radio('SAT2'), { sat_name: 'ISS', prop_mode: 'SAT' });
  });

  t.test('a club key stores the radio for the club, operated by the key creator', async (t) => {
    const club = await createClub(db);
    const member = await club.memberToken(3);
    const memberKey = await v1Key(db, club.clubId, 'rw', member.userId);
    t.equal((await post(server, '/api/radio', { key: memberKey, radio: 'Club IC-7300', frequency: 3700000 })).status, 200);
    const { rows } = await db.query('SELECT user_id, operator_id FROM radios WHERE radio = $1', ['Club IC-7300']);
    t.same(rows, [{ user_id: club.clubId, operator_id: member.userId }]);
  });

  t.test('error answers', async (t) => {
    for (const bad of ['{"key":', '[1,2]', '"radio"']) {
      const res = await post(server, '/api/radio', bad);
      t.equal(res.status, 400);
      t.same(res.body, { status: 'failed', reason: 'wrong JSON' });
    }
    for (const badKey of [{}, { key: 'nope' }]) {
      const res = await post(server, '/api/radio', { ...badKey, radio: 'X' });
      t.equal(res.status, 401);
      t.same(res.body, { status: 'failed', reason: 'missing api key' });
    }
    const readOnly = await post(server, '/api/radio', { key: await v1Key(db, op.userId, 'r'), radio: 'X' });
    t.equal(readOnly.status, 403);
    t.same(readOnly.body, { status: 'failed', reason: 'API key does not have write permissions' });
    const missing = await post(server, '/api/radio', { key, frequency: 14074000 });
    t.equal(missing.status, 404);
    t.same(missing.body, { status: 'failed', reason: 'missing radio element in payload' });
    const invalid = await post(server, '/api/radio', {
      key, radio: 'X', frequency: '14.074', mode: 'VERYLONGMODENAME', cat_url: 'ftp://example.org', sat_name: 'S'.repeat(256),
    });
    t.equal(invalid.status, 400);
    t.same(invalid.body, { status: 'failed', reason: 'invalid field(s): frequency, mode, sat_name, cat_url' });
    const blankName = await post(server, '/api/radio', { key, radio: ' ' });
    t.equal(blankName.status, 400);
    t.same(blankName.body, { status: 'failed', reason: 'invalid field(s): radio' });
    const tooLong = await post(server, '/api/radio', { key, radio: 'R'.repeat(251) });
    t.same(tooLong.body, { status: 'failed', reason: 'invalid field(s): radio' });
    t.equal(await radio('X'), undefined);
  });
});
