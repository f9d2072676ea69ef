import { connect } from 'node:net';
import t from 'tap';
import { startWorker } from '../../lib/worker/index.js';
import { internalCallKey } from '../../lib/worker/workerKeys.js';
import { callApi, INTERNAL_KEY, memoryLogger, registerTopic, SECRET, startTestWorker } from '../helpers/worker.js';

t.test('the worker refuses to start without a proper secret', async (t) => {
  const base = { wsPort: 0, internalPort: 0, logger: memoryLogger() };
  await t.rejects(startWorker({ ...base, secret: '' }), /secret is missing/);
  await t.rejects(startWorker({ ...base, secret: 'x'.repeat(31) }), /secret is too short \(31 characters, at least 32/);
  const worker = await startWorker({ ...base, secret: 'x'.repeat(32) });
  await worker.close();
});

t.test('internal API', async (t) => {
  const worker = await startTestWorker();
  t.teardown(() => worker.close());
  const port = worker.internalPort;

  t.test('every call needs the secret', async (t) => {
    const calls: [string, string, unknown][] = [
      ['POST', '/internal/register', { topic: 'a', meta: { require_token: true } }],
      ['POST', '/internal/unregister', { topic: 'a' }],
      ['POST', '/internal/publish', { topic: 'a', payload: 1 }],
      ['POST', '/internal/push', { topic: 'a', payload: 1 }],
      ['GET', '/internal/status', undefined],
      ['GET', '/internal/instance', undefined],
    ];
    for (const [method, path, body] of calls) {
      for (const secret of [null, '', 'wrong', internalCallKey(SECRET, true), INTERNAL_KEY.slice(0, -1), INTERNAL_KEY + 'x']) {
        const reply = await callApi(port, method, path, body, { secret });
        t.same(reply, { status: 403, text: 'forbidden\n' }, `${method} ${path} with secret ${JSON.stringify(secret)}`);
      }
    }
    t.equal((await callApi(port, 'GET', '/internal/status')).status, 200, 'right secret');
  });

  t.test('every reply names the run of the worker; another start is another run', async (t) => {
    const headers = { 'X-Worker-Secret': INTERNAL_KEY };
    const asked = await fetch(`http://127.0.0.1:${port}/internal/instance`, { headers });
    const { instance_id: id } = (await asked.json()) as { instance_id: string };
    t.match(id, /^[0-9a-f]{16}$/, 'GET /internal/instance');
    t.equal(asked.headers.get('x-worker-instance'), id, 'in the header too');
    const status = await fetch(`http://127.0.0.1:${port}/internal/status`, { headers });
    await status.arrayBuffer();
    t.equal(status.headers.get('x-worker-instance'), id, 'on other calls');
    const other = await startTestWorker();
    const again = await fetch(`http://127.0.0.1:${other.internalPort}/internal/instance`, { headers });
    await again.arrayBuffer();
    await other.close();
    t.not(again.headers.get('x-worker-instance'), id, 'another start names another run');
  });

  t.test('wrong method is 405, unknown path 404', async (t) => {
    t.same(await callApi(port, 'GET', '/internal/publish'), { status: 405, text: 'method not allowed\n' });
    t.equal((await callApi(port, 'PUT', '/internal/register', {})).status, 405);
    t.equal((await callApi(port, 'POST', '/internal/status', {})).status, 405);
    t.equal((await callApi(port, 'GET', '/internal/nothing')).status, 404);
  });

  t.test('register and unregister', async (t) => {
    t.same(await callApi(port, 'POST', '/internal/register', { topic: 'station.1', meta: { require_token: true } }), { status: 200, text: '' });
    t.equal((await callApi(port, 'POST', '/internal/register', { topic: 'public.1' })).status, 200, 'meta is optional');
    t.same(await callApi(port, 'POST', '/internal/register', { meta: { require_token: true } }), { status: 400, text: 'bad request\n' });
    t.equal((await callApi(port, 'POST', '/internal/register', { topic: 'x', meta: { require_token: 'yes' } })).status, 400);
    t.equal((await callApi(port, 'POST', '/internal/register', undefined, { raw: '{nope' })).status, 400);
    t.equal((await callApi(port, 'POST', '/internal/register', [1, 2])).status, 400);

    const listed = JSON.parse((await callApi(port, 'GET', '/internal/status?topics=1')).text) as { topic_list: string[] };
    t.ok(listed.topic_list.includes('station.1') && listed.topic_list.includes('public.1'));

    t.same(await callApi(port, 'POST', '/internal/unregister', { topic: 'public.1' }), { status: 200, text: '' });
    t.equal((await callApi(port, 'POST', '/internal/unregister', {})).status, 400);
    const after = JSON.parse((await callApi(port, 'GET', '/internal/status?topics=1')).text) as { topic_list: string[] };
    t.notOk(after.topic_list.includes('public.1'));
  });

  t.test('publish codes and messages', async (t) => {
    await registerTopic(port, 'station.9');
    t.same(await callApi(port, 'POST', '/internal/publish', { topic: 'station.9', payload: { n: 1 } }), { status: 200, text: '' });
    t.equal((await callApi(port, 'POST', '/internal/push', { topic: 'station.9', payload: null })).status, 200, 'alias; null is a payload');
    t.same(await callApi(port, 'POST', '/internal/publish', undefined, { raw: 'not json' }), { status: 400, text: 'bad request\n' });
    t.same(await callApi(port, 'POST', '/internal/publish', { payload: 1 }), { status: 400, text: 'missing topic\n' });
    t.same(await callApi(port, 'POST', '/internal/publish', { topic: 'station.9' }), { status: 400, text: 'missing payload\n' });
    t.same(await callApi(port, 'POST', '/internal/publish', { topic: 'nobody.1', payload: 1 }), { status: 404, text: 'topic not registered\n' });
  });

  t.test('status shape', async (t) => {
    const reply = await callApi(port, 'GET', '/internal/status');
    const status = JSON.parse(reply.text) as Record<string, unknown>;
    t.match(status, {
      status: 'ok',
      version: String,
      uptime: /^\d+s$|^\d+m\d+s$/,
      registered_topics: Number,
      active_topics: 0,
      connected_clients: 0,
      connected_sockets: 0,
      cluster_nodes: -1,
    });
    t.notOk('topic_list' in status, 'topic lists only on request');
    const withLists = JSON.parse((await callApi(port, 'GET', '/internal/status?topics=1')).text) as Record<string, unknown>;
    t.ok(Array.isArray(withLists.topic_list) && Array.isArray(withLists.active_topic_list));
    t.ok((withLists.topic_list as string[]).includes('worker.status'), 'the worker registers its status topic itself');
  });

  t.test('bodies over 1 MiB are refused without being read to the end', async (t) => {
    const payload = 'x'.repeat(1024 * 1024);
    const reply = await callApi(port, 'POST', '/internal/publish', { topic: 'station.9', payload });
    t.equal(reply.status, 413);
    t.match(reply.text, /too large/);

    // Chunked upload without Content-Length that never ends on its own: only the worker's
    // answer, sent as soon as the cap is passed, stops it.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.setEncoding('latin1');
      socket.on('data', (data: string) => {
        received += data;
        if (received.includes('\r\n\r\n')) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('error', (err) => (received ? resolve(received) : reject(err)));
      socket.write(`POST /internal/publish HTTP/1.1\r\nHost: x\r\nX-Worker-Secret: ${INTERNAL_KEY}\r\nTransfer-Encoding: chunked\r\n\r\n`);
      const chunk = `40000\r\n${'a'.repeat(0x40000)}\r\n`;
      const pump = () => {
        while (!socket.destroyed && socket.write(chunk));
        if (!socket.destroyed) socket.once('drain', pump);
      };
      pump();
    });
    t.match(answer, /^HTTP\/1\.1 413/);

    t.equal((await callApi(port, 'POST', '/internal/publish', { topic: 'station.9', payload: 'x'.repeat(1000 * 1000) })).status, 200, 'just under the cap');
  });
});
