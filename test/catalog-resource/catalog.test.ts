import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';

t.test('catalog resource', async (t) => {
  const server = await startTestServer(t);
  // No scope needed: a token holding only an unrelated scope reads every topic.
  const op = await createOperator(server.db.pool, { scopes: ['statistic:read'] });
  const get = (query = '') => server.request(`/api/v2/catalog${query}`, { token: op.token });

  t.test('without topic: the topic names', async (t) => {
    const res = await get();
    t.equal(res.status, 200);
    t.same(res.body.data, { topics: ['contest', 'dxcc', 'subdivisions'] });
    t.equal(res.body.meta.resource, 'catalog');
    t.equal(res.body.meta.topic, null);
    t.same((await get('?topic=')).body.data, { topics: ['contest', 'dxcc', 'subdivisions'] }, 'blank is absent');
  });

  t.test('contest: the ADIF contest ids a new QSO may carry', async (t) => {
    const res = await get('?topic=contest');
    t.equal(res.status, 200);
    t.equal(res.body.meta.topic, 'contest');
    t.equal(res.body.meta.count, res.body.data.length);
    t.equal(res.body.data.length, 252, '256 in ADIF 3.1.6, less the 4 import-only ones');
    t.strictSame(res.body.data[0], { id: 1, contest: '070-160M-SPRINT', name: 'PODXS Great Pumpkin Sprint' });
    const cqww = res.body.data.find((c: { contest: string }) => c.contest === 'CQ-WW-CW');
    t.same(cqww, { id: cqww.id, contest: 'CQ-WW-CW', name: 'CQ WW DX Contest (CW)' });
    for (const importOnly of ['RAC', 'EA-RTTY', 'URE-DX', 'VIRGINIA QSO PARTY']) {
      t.notOk(res.body.data.some((c: { contest: string }) => c.contest === importOnly), importOnly);
    }
    t.same((await get('?topic=CONTEST')).body.data, res.body.data, 'topic is case-insensitive');
  });

  t.test('dxcc: current entities by name (default) or by prefix', async (t) => {
    const byName = await get('?topic=dxcc');
    t.equal(byName.status, 200);
    t.equal(byName.body.meta.topic, 'dxcc');
    t.equal(byName.body.data.length, 340, 'ADIF codes less the deleted entities and code 0 (None)');
    const germany = byName.body.data.find((e: { adif: number }) => e.adif === 230);
    t.strictSame(germany, { adif: 230, name: 'Fed. Rep. of Germany', prefix: 'DL', continent: 'EU', cqz: 14, ituz: 28, lat: 51, long: 10 });
    t.notOk(byName.body.data.some((e: { adif: number }) => e.adif === 0 || e.adif === 1 - 1));
    t.notOk(byName.body.data.some((e: { adif: number }) => e.adif === 81), 'deleted entity (Germany before 1973) left out');
    const names = byName.body.data.map((e: { name: string }) => e.name);
    t.same(names, [...names].sort((a: string, b: string) => a.localeCompare(b, 'en', { sensitivity: 'base' })));

    const byPrefix = await get('?topic=dxcc&order=PREFIX');
    t.equal(byPrefix.body.data.length, 340);
    const prefixes = byPrefix.body.data.map((e: { prefix: string }) => e.prefix);
    t.same(prefixes, [...prefixes].sort());
    t.same((await get('?topic=dxcc&order=name')).body.data, byName.body.data);

    const bad = await get('?topic=dxcc&order=size');
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'validation_error');
    t.same(bad.body.error.details, { field: 'order', allowed: ['name', 'prefix'] });
  });

  t.test('subdivisions: the current ones of one entity; dxcc is required', async (t) => {
    const canada = await get('?topic=subdivisions&dxcc=1');
    t.equal(canada.status, 200);
    t.equal(canada.body.meta.topic, 'subdivisions');
    t.strictSame(canada.body.data[0], { state: 'NS', name: 'Nova Scotia' });
    t.ok(canada.body.data.some((s: { state: string }) => s.state === 'QC'));
    const mexico = await get('?topic=subdivisions&dxcc=50');
    t.equal(mexico.body.data.length, 32, 'import-only state codes left out');
    t.notOk(mexico.body.data.some((s: { state: string }) => s.state === 'DF'));
    t.same((await get('?topic=subdivisions&dxcc=230')).body.data.length, 16);
    t.same((await get('?topic=subdivisions&dxcc=246')).body.data, [], 'an entity without subdivisions');

    for (const query of ['?topic=subdivisions', '?topic=subdivisions&dxcc=', '?topic=subdivisions&dxcc=abc', '?topic=subdivisions&dxcc=9999', '?topic=subdivisions&dxcc=-1']) {
      const res = await get(query);
      t.equal(res.status, 400, query);
      t.equal(res.body.error.code, 'validation_error');
      t.equal(res.body.error.details.field, 'dxcc');
    }
  });

  t.test('unknown topic: 400 with the allowed topics', async (t) => {
    const res = await get('?topic=bands');
    t.equal(res.status, 400);
    t.equal(res.body.error.code, 'validation_error');
    t.same(res.body.error.details, { field: 'topic', allowed: ['contest', 'dxcc', 'subdivisions'] });
  });

  t.test('GET only, no items, token required', async (t) => {
    for (const method of ['POST', 'PATCH', 'DELETE']) {
      const res = await server.request('/api/v2/catalog', { method, token: op.token, json: {} });
      t.equal(res.status, 405, method);
      t.equal(res.headers.get('allow'), 'GET');
    }
    t.equal((await server.request('/api/v2/catalog/1', { token: op.token })).status, 404);
    const anonymous = await server.request('/api/v2/catalog');
    t.equal(anonymous.status, 401);
    t.equal(anonymous.body.error.code, 'unauthorized');
  });
});
