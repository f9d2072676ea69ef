import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { connectClient, SECRET, startTestWorker } from '../helpers/worker.js';

// worker.derived_keys on both sides: our application and our worker still work end to end.
t.test('derived keys on both sides: token, register, publish, push', async (t) => {
  const worker = await startTestWorker({ derivedKeys: true });
  t.teardown(() => worker.close());
  const server = await startTestServer(t, {
    config: {
      worker: { url: `http://127.0.0.1:${worker.internalPort}`, secret: SECRET, derived_keys: true, public_url: `ws://127.0.0.1:${worker.wsPort}` },
    },
  });
  const op = await createOperator(server.db.pool);
  const topic = `station.${op.stationId}`;
  const grant = await server.request(`/live/token?topic=${topic}`, { token: op.token });
  t.equal(grant.status, 200, 'the topic was registered with the derived internal key');
  const client = await connectClient(worker.wsPort, topic);
  t.teardown(() => client.close());
  client.auth(grant.body.data.token);
  t.same(await client.next(), { type: 'auth_ok' }, 'the token signed with the derived key is accepted');
  const created = await server.request('/api/v2/qso', {
    method: 'POST', token: op.token,
    json: { station_profile_id: op.stationId, call: 'G4DRV', band: '20m', mode: 'FT8', qso_date: '2026-11-01', time_on: '1200' },
  });
  t.equal(created.status, 201);
  const push = await client.next(5000);
  t.match(push, { type: 'push', payload: { type: 'qso_created', qso_id: created.body.data.id } });
});
