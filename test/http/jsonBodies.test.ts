import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { post as v1Post, v1Key } from '../v1/helpers.js';

/** `{"a": [[…]]}` nesting `depth` levels in all (the object is the first). */
const nested = (depth: number) => `${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}`;

t.test('JSON bodies on every door: the nesting limit (16) and __proto__', async (t) => {
  const server = await startTestServer(t);
  const op = await createOperator(server.db.pool);
  const key = await v1Key(server.db.pool, op.userId, 'rw');
  const v2 = (path: string, method: string, body: string) => server.request(path, { method, token: op.token, body, headers: { 'content-type': 'application/json' } });

  t.test('16 levels are read, 17 are refused', async (t) => {
    for (const [door, path, method] of [['v2 POST /qso (streamed)', '/api/v2/qso', 'POST'], ['v2 PATCH (whole body)', '/api/v2/qso/999999', 'PATCH']] as const) {
      const ok = await v2(path, method, `{"station_profile_id":${op.stationId},"qsos":${nested(16)}}`);
      t.equal(ok.status, 400, door);
      t.notMatch(ok.body.error.message, /nests deeper/, `${door}: 16 levels pass the limit (${ok.body.error.message})`);
      const deep = await v2(path, method, `{"station_profile_id":${op.stationId},"qsos":${nested(17)}}`);
      t.equal(deep.status, 400, door);
      t.equal(deep.body.error.message, 'Request body nests deeper than 16 levels', `${door}: 17 levels refused`);
    }
    const ok = await v1Post(server, '/api/qso', `{"key":"${key}","station_profile_id":"x","deep":${nested(16)}}`);
    t.same([ok.status, ok.body], [401, { status: 'failed', reason: 'station id does not belong to the API key owner.' }], 'v1: 16 levels are read');
    const deep = await v1Post(server, '/api/qso', `{"key":"${key}","station_profile_id":"x","deep":${nested(17)}}`);
    t.same([deep.status, deep.body], [200, { status: 'failed', reason: 'wrong JSON' }], 'v1: 17 levels are not JSON it reads');
  });

  t.test('a __proto__ member is refused, never silently dropped', async (t) => {
    const qso = `"call":"K1PRO","band":"20m","mode":"SSB","qso_date":"2024-05-01","time_on":"1200"`;
    for (const body of [
      `{"station_profile_id":${op.stationId},${qso},"__proto__":{"x":1}}`,
      `{"station_profile_id":${op.stationId},${qso},"__proto__":"x"}`,
      `{"station_profile_id":${op.stationId},"qsos":[{${qso},"__proto__":{}}]}`,
    ]) {
      const res = await v2('/api/v2/qso', 'POST', body);
      t.equal(res.status, 400, body);
      t.match(res.body.error, { message: 'Field "__proto__" is not accepted', details: { field: '__proto__' } });
    }
    const { rows } = await server.db.pool.query("SELECT count(*)::int AS n FROM qso WHERE call = 'K1PRO'");
    t.equal(rows[0].n, 0);
    const stored = await v2('/api/v2/qso', 'POST', `{"station_profile_id":${op.stationId},${qso}}`);
    t.equal(stored.status, 201);
    const patch = await v2(`/api/v2/qso/${stored.body.data.id}`, 'PATCH', '{"__proto__":"x"}');
    t.equal(patch.status, 400, `PATCH refuses it too: ${patch.text}`);
    t.match(patch.body.error.message, /__proto__/);
  });
});
