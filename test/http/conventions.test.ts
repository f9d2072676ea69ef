import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { validationError } from '../../lib/http/errors.js';
import type { ResourceDefinition } from '../../lib/http/v2/resource.js';

/** Resources that exercise the dispatcher itself: a read-only one and one with every verb. */
const probes: ResourceDefinition[] = [
  {
    name: 'lookup',
    description: 'read-only probe',
    scoped: true,
    list: { summary: 'list', handler: async () => ({ data: [] }) },
  },
  {
    name: 'station',
    description: 'full probe',
    scoped: true,
    list: {
      summary: 'list',
      query: { type: 'object', properties: { n: { type: 'string', pattern: '^\\d+$' } } },
      handler: async ({ query }) => {
        if (query.boom) throw new Error('secret internal detail');
        return { data: [{ id: 1 }], meta: { extra: true } };
      },
    },
    show: { summary: 'show', handler: async ({ id }) => ({ data: { id: Number(id) } }) },
    create: {
      summary: 'create',
      body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      handler: async ({ body }) => {
        if (body.name === 'bad') throw validationError('bad name', { field: 'name' });
        return { data: body, status: 201 };
      },
    },
    update: { summary: 'update', handler: async ({ id, body }) => ({ data: { id, ...body } }) },
    remove: {
      summary: 'remove',
      handler: async ({ ctx }) => {
        ctx.status = 204;
        return undefined;
      },
    },
  },
];

t.test('v2 conventions', async (t) => {
  const server = await startTestServer(t, { resources: probes });
  const op = await createOperator(server.db.pool);

  t.test('status on both prefixes, with and without trailing slash, no token', async (t) => {
    for (const path of ['/api/v2', '/api/v2/', '/api/v2/status', '/index.php/api/v2/status/', '/index.php/api/v2']) {
      const res = await server.request(path);
      t.equal(res.status, 200, path);
      t.equal(res.body.data.status, 'ok');
      t.equal(res.body.meta.resource, 'status');
      t.equal(res.body.meta.method, 'GET');
      t.match(res.body.meta.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    }
    const post = await server.request('/api/v2/status', { method: 'POST' });
    t.equal(post.status, 405);
    t.equal(post.headers.get('allow'), 'GET');
    t.equal(post.body.error.code, 'method_not_allowed');
    t.equal((await server.request('/api/v2/status/1')).status, 404);
  });

  t.test('unknown resource and too many segments are 404 not_found with details', async (t) => {
    for (const path of ['/api/v2/nope', '/api/v2/station/1/extra', '/index.php/api/v2/qso/1/2/3']) {
      const res = await server.request(path, { token: op.token });
      t.equal(res.status, 404, path);
      t.equal(res.body.error.code, 'not_found');
      t.same(res.body.error.details, {});
      t.type(res.body.error.message, 'string');
    }
  });

  t.test('405 lists exactly the supported verbs and comes before authentication', async (t) => {
    const post = await server.request('/api/v2/lookup', { method: 'POST' });
    t.equal(post.status, 405);
    t.equal(post.headers.get('allow'), 'GET');
    const put = await server.request('/api/v2/station/1', { method: 'PUT', token: op.token });
    t.equal(put.status, 405);
    t.equal(put.headers.get('allow'), 'GET, POST, PATCH, DELETE');
    const postItem = await server.request('/api/v2/station/1', { method: 'POST', token: op.token, json: { name: 'x' } });
    t.equal(postItem.status, 405);
    t.equal(postItem.headers.get('allow'), 'GET, PATCH, DELETE');
  });

  t.test('OPTIONS preflight and CORS headers on every response', async (t) => {
    const pre = await server.request('/api/v2/station', { method: 'OPTIONS' });
    t.equal(pre.status, 204);
    t.equal(pre.text, '');
    for (const res of [pre, await server.request('/api/v2/nope')]) {
      t.equal(res.headers.get('access-control-allow-origin'), '*');
      t.equal(res.headers.get('access-control-allow-methods'), 'GET, POST, PATCH, DELETE, OPTIONS');
      t.equal(res.headers.get('access-control-allow-headers'), 'Authorization, Content-Type, X-API-Key');
      t.equal(res.headers.get('access-control-max-age'), '86400');
      t.equal(res.headers.get('access-control-expose-headers'), 'Link, Retry-After');
    }
  });

  t.test('envelope, ids, misplaced verbs', async (t) => {
    const list = await server.request('/api/v2/station/', { token: op.token });
    t.equal(list.status, 200);
    t.same(list.body.data, [{ id: 1 }]);
    t.equal(list.body.meta.resource, 'station');
    t.equal(list.body.meta.extra, true);
    t.equal((await server.request('/api/v2/station/7', { token: op.token })).body.data.id, 7);
    t.equal((await server.request('/api/v2/station/abc', { token: op.token })).status, 404);
    t.equal((await server.request('/api/v2/station/0', { token: op.token })).status, 404);
    const patchNoId = await server.request('/api/v2/station', { method: 'PATCH', token: op.token, json: {} });
    t.equal(patchNoId.status, 404);
    const del = await server.request('/api/v2/station/3', { method: 'DELETE', token: op.token });
    t.equal(del.status, 204);
    t.equal(del.text, '');
  });

  t.test('bodies: invalid JSON, invalid UTF-8, non-scalars, schema, size', async (t) => {
    const bad = await server.request('/api/v2/station', { method: 'POST', token: op.token, body: '{"name":', headers: { 'content-type': 'application/json' } });
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'invalid_json');
    const utf8 = await server.request('/api/v2/station', {
      method: 'POST', token: op.token, body: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      headers: { 'content-type': 'application/json' },
    });
    t.equal(utf8.status, 400);
    t.equal(utf8.body.error.code, 'invalid_json');
    const nested = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { name: 'x', tags: ['a'] } });
    t.equal(nested.status, 400);
    t.equal(nested.body.error.code, 'validation_error');
    t.equal(nested.body.error.details.field, 'tags');
    const missing = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: {} });
    t.equal(missing.status, 400);
    t.equal(missing.body.error.details.field, 'name');
    const handler = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { name: 'bad' } });
    t.equal(handler.body.error.code, 'validation_error');
    const ok = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { name: 'ok' } });
    t.equal(ok.status, 201);
    const query = await server.request('/api/v2/station?n=x', { token: op.token });
    t.equal(query.status, 400);
    t.equal(query.body.error.details.field, 'n');

    // 10 MB of nested arrays: refused cleanly (too deep for a scalar body, or too large), server keeps serving.
    const deep = '['.repeat(5_000_000) + ']'.repeat(5_000_000);
    const huge = await server.request('/api/v2/station', { method: 'POST', token: op.token, body: deep, headers: { 'content-type': 'application/json' } });
    t.ok([400, 413].includes(huge.status), `status ${huge.status}`);
    t.ok(['validation_error', 'payload_too_large', 'invalid_json'].includes(huge.body.error.code));
    t.equal((await server.request('/api/v2/status')).status, 200, 'still serving');
  });

  t.test('unexpected errors: 500 internal_error without internals', async (t) => {
    const res = await server.request('/api/v2/station?boom=1', { token: op.token });
    t.equal(res.status, 500);
    t.equal(res.body.error.code, 'internal_error');
    t.notMatch(res.text, /secret internal detail|at .*\.ts/);
  });

  t.test('openapi.json and metrics live outside the v2 space', async (t) => {
    const doc = await server.request('/openapi.json');
    t.equal(doc.status, 200);
    t.equal(doc.body.openapi, '3.1.0');
    t.ok(doc.body.paths['/api/v2/station']?.post?.requestBody, 'create body schema published');
    t.ok(doc.body.paths['/api/v2/station/{id}']?.patch);
    t.notOk(doc.body.paths['/api/v2/lookup']?.post, 'no POST for a read-only resource');
    const metrics = await server.request('/metrics');
    t.equal(metrics.status, 200);
    t.match(metrics.text, /logbook_http_requests_total\{api="v2",method="GET",resource="station",status="200"\} \d+/);
    t.match(metrics.text, /logbook_http_request_duration_seconds_bucket/);
  });
});

t.test('body size limit is configurable and answers 413', async (t) => {
  const server = await startTestServer(t, { resources: probes, config: { max_json_body_bytes: 2048 } });
  const op = await createOperator(server.db.pool);
  const res = await server.request('/api/v2/station', { method: 'POST', token: op.token, json: { name: 'x'.repeat(5000) } });
  t.equal(res.status, 413);
  t.equal(res.body.error.code, 'payload_too_large');
  t.equal(res.body.error.details.limit, 2048);
  t.equal((await server.request('/api/v2/status')).status, 200);
});
