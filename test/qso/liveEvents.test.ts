import t from 'tap';
import { createStation } from '../../lib/accounts/stations.js';
import { createOperator } from '../helpers/fixtures.js';
import { startTestServer } from '../helpers/server.js';
import { connectClient, SECRET, spawnWorkerProcess, type Frame, type TestClient } from '../helpers/worker.js';
import { v1Key } from '../v1/helpers.js';

/**
 * QSO events as browsers get them: the API publishes to a worker in its own process, browsers
 * hold WebSockets to it with tokens from /live/token. Every write door, and the writes that must
 * say nothing (dry runs, failures).
 */

t.test('QSO writes reach browsers through a real worker', async (t) => {
  const worker = await spawnWorkerProcess({});
  t.teardown(() => worker.stop());
  const server = await startTestServer(t, {
    config: { worker: { url: `http://127.0.0.1:${worker.internalPort}`, secret: SECRET, public_url: `ws://127.0.0.1:${worker.wsPort}` } },
  });
  const pool = server.db.pool;
  const op = await createOperator(pool, { callsign: 'DL1LIV' });
  const otherStation = await createStation(pool, { userId: op.userId, name: 'Portable', callsign: 'DL1LIV/P', gridsquare: 'JO62QM' });
  const stranger = await createOperator(pool, { callsign: 'DL2STR' });

  async function browser(topic: string, token = op.token): Promise<TestClient> {
    const answer = await server.request(`/live/token?topic=${topic}`, { token });
    if (answer.status !== 200) throw new Error(`/live/token ${topic}: ${answer.status} ${answer.text}`);
    t.equal(answer.body.data.ws_url, `ws://127.0.0.1:${worker.wsPort}/ws?topic=${topic}`);
    const client = await connectClient(worker.wsPort, topic);
    client.auth(answer.body.data.token);
    t.same(await client.next(), { type: 'auth_ok' });
    t.teardown(() => client.close());
    return client;
  }
  const home = await browser(`station.${op.stationId}`);
  const portable = await browser(`station.${otherStation}`);
  const user = await browser(`qsos_user.${op.userId}`);
  const strangers = await browser(`qsos_user.${stranger.userId}`, stranger.token);
  const pushed = async (client: TestClient): Promise<Frame> => {
    const frame = await client.next(3000);
    t.equal(frame.type, 'push');
    return frame.payload as Frame;
  };
  const quiet = async () => {
    for (const client of [home, portable, user]) t.ok(await client.silentFor(client === home ? 300 : 0), 'no event');
  };

  const qso = { station_profile_id: op.stationId, call: 'K1LIV', band: '20m', mode: 'SSB', qso_date: '2024-05-01', time_on: '1234' };

  t.test('v2 single create, update, move, delete', async (t) => {
    const created = await server.request('/api/v2/qso', { method: 'POST', token: op.token, json: qso });
    t.equal(created.status, 201);
    const id = created.body.data.id as number;
    const event = { type: 'qso_created', qso_id: id, station_id: op.stationId };
    t.same(await pushed(home), event);
    t.same(await pushed(user), event);

    t.equal((await server.request(`/api/v2/qso/${id}`, { method: 'PATCH', token: op.token, json: { comment: 'x' } })).status, 200);
    t.same(await pushed(home), { type: 'qso_updated', qso_id: id, station_id: op.stationId });
    t.same(await pushed(user), { type: 'qso_updated', qso_id: id, station_id: op.stationId });

    t.equal((await server.request(`/api/v2/qso/${id}`, { method: 'PATCH', token: op.token, json: { station_profile_id: otherStation } })).status, 200);
    const moved = { type: 'qso_updated', qso_id: id, station_id: otherStation };
    t.same(await pushed(portable), moved, 'the new location hears of its QSO');
    t.same(await pushed(home), moved, 'and the old one of its loss');
    t.same(await pushed(user), moved);

    t.equal((await server.request(`/api/v2/qso/${id}`, { method: 'DELETE', token: op.token })).status, 204);
    t.same(await pushed(portable), { type: 'qso_deleted', qso_id: id, station_id: otherStation });
    t.same(await pushed(user), { type: 'qso_deleted', qso_id: id, station_id: otherStation });
    await quiet();
  });

  t.test('imports: one qso_imported per import, on every door', async (t) => {
    const adif = '<EOH>' + ['K2IMP', 'K3IMP', 'K4IMP'].map((call) => `<CALL:5>${call}<QSO_DATE:8>20240501<TIME_ON:4>1200<BAND:3>20m<MODE:2>CW<EOR>`).join('');
    const v2Adif = await server.request('/api/v2/qso', { method: 'POST', token: op.token, json: { station_profile_id: op.stationId, import_type: 'adif', adif } });
    t.equal(v2Adif.status, 201);
    const three = { type: 'qso_imported', station_id: op.stationId, imported: 3 };
    t.same(await pushed(home), three, 'v2 ADIF');
    t.same(await pushed(user), three);

    const qsos = ['K5BLK', 'K6BLK'].map((call) => ({ ...qso, call, station_profile_id: undefined }));
    const bulk = await server.request('/api/v2/qso', { method: 'POST', token: op.token, json: { station_profile_id: op.stationId, qsos } });
    t.equal(bulk.status, 201);
    t.same(await pushed(home), { type: 'qso_imported', station_id: op.stationId, imported: 2 }, 'v2 bulk JSON');
    t.same(await pushed(user), { type: 'qso_imported', station_id: op.stationId, imported: 2 });

    const key = await v1Key(pool, op.userId);
    const string = adif.replace(/K(\d)IMP/g, 'K$1VON');
    const v1 = await server.request('/api/qso', { method: 'POST', json: { key, station_profile_id: op.stationId, type: 'adif', string } });
    t.equal(v1.status, 201);
    t.same(await pushed(home), { ...three }, 'v1 api/qso');
    t.same(await pushed(user), { ...three });
    await quiet();
  });

  t.test('writes that store nothing say nothing', async (t) => {
    const dry = await server.request('/api/v2/qso', { method: 'POST', token: op.token, json: { ...qso, call: 'K7DRY', dryrun: true } });
    t.equal(dry.status, 200);
    const duplicate = await server.request('/api/v2/qso', {
      method: 'POST', token: op.token, json: { station_profile_id: op.stationId, qsos: [{ ...qso, call: 'K5BLK', station_profile_id: undefined }] },
    });
    t.equal(duplicate.status, 201, 'only a duplicate: nothing imported');
    const refused = await server.request('/api/v2/qso', { method: 'POST', token: stranger.token, json: qso });
    t.equal(refused.status, 403, "another user's location");
    await quiet();
    t.ok(await strangers.silentFor(0), "the other user's browser heard nothing of it all");
  });
});
