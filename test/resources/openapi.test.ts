import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { stationResource } from '../../lib/http/v2/resources/station/index.js';
import { logbookResource } from '../../lib/http/v2/resources/logbook/index.js';
import { radioResource } from '../../lib/http/v2/resources/radio/index.js';
import { statisticResource } from '../../lib/http/v2/resources/statistic/index.js';
import { contestResource } from '../../lib/http/v2/resources/contest/index.js';
import { lookupResource } from '../../lib/http/v2/resources/lookup/index.js';

t.test('the OpenAPI document lists exactly the declared verbs and scopes of the six resources', async (t) => {
  const server = await startTestServer(t, {
    resources: [stationResource, logbookResource, radioResource, statisticResource, contestResource, lookupResource],
  });
  const doc = await server.request('/openapi.json');
  t.equal(doc.status, 200);
  const verbs = (path: string) => Object.keys(doc.body.paths[path] ?? {}).sort();
  for (const name of ['station', 'logbook', 'contest']) {
    t.same(verbs(`/api/v2/${name}`), ['get', 'post'], name);
    t.same(verbs(`/api/v2/${name}/{id}`), ['delete', 'get', 'patch'], name);
    t.equal(doc.body.paths[`/api/v2/${name}/{id}`].delete['x-required-scope'], `${name}:delete`);
  }
  t.same(verbs('/api/v2/radio'), ['get', 'post']);
  t.same(verbs('/api/v2/radio/{id}'), ['delete', 'get']);
  t.same(verbs('/api/v2/statistic'), ['get']);
  t.same(verbs('/api/v2/lookup'), ['get']);
  t.same(verbs('/api/v2/statistic/{id}'), []);
  t.same(verbs('/api/v2/lookup/{id}'), []);
  t.equal(doc.body.paths['/api/v2/radio'].post['x-required-scope'], 'radio:write');
  const lookupParams = doc.body.paths['/api/v2/lookup'].get.parameters.map((p: { name: string }) => p.name);
  t.same(lookupParams, ['callsign', 'detail', 'band', 'mode', 'station_ids', 'callbook', 'grid', 'cnfm']);
  t.ok(doc.body.paths['/api/v2/contest/{id}'].patch.requestBody.content['application/json'].schema.properties.unlink_qso_ids);
});
