import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { createBrowserToken } from '../../lib/worker/index.js';
import { connectClient, publish, registerTopic, SECRET, startTestWorker } from '../helpers/worker.js';

/** A masked client text frame (payload under 64 KiB), as RFC 6455 requires from clients. */
function clientTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
  const header =
    payload.length < 126
      ? Buffer.from([0x81, 0x80 | payload.length])
      : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([header, mask, masked]);
}

/**
 * A WebSocket client that authenticates and then stops reading, like a browser
 * tab on a dead network: the worker's writes to it back up.
 */
async function stalledClient(port: number, topic: string, token: string): Promise<{ socket: Socket; ended: Promise<number> }> {
  const socket = connect(port, '127.0.0.1');
  const key = randomBytes(16).toString('base64');
  socket.write(
    `GET /ws?topic=${topic} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  let head = '';
  let upgraded = false;
  await new Promise<void>((resolve, reject) => {
    const onData = (data: Buffer) => {
      head += data.toString('latin1');
      if (head.includes('"auth_ok"')) {
        socket.off('data', onData);
        resolve();
      } else if (!upgraded && head.includes('\r\n\r\n')) {
        if (!head.startsWith('HTTP/1.1 101')) return reject(new Error(head));
        // Like a browser, speak only once the upgrade is answered.
        upgraded = true;
        socket.write(clientTextFrame(JSON.stringify({ type: 'auth', token })));
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
  socket.pause();
  let received = 0;
  const ended = new Promise<number>((resolve) => {
    socket.on('data', (data: Buffer) => (received += data.length));
    socket.once('close', () => resolve(received));
    socket.once('error', () => {});
  });
  return { socket, ended };
}

t.test('a client that stops reading is skipped, then dropped; others are unaffected', async (t) => {
  const worker = await startTestWorker({ maxBackpressureBytes: 256 * 1024, slowConsumerTimeoutMs: 400 });
  t.teardown(() => worker.close());
  const topic = 'station.42';
  await registerTopic(worker.internalPort, topic);
  const token = createBrowserToken(SECRET, { userId: 1, topic, ttlSeconds: 60 });

  const healthy = await connectClient(worker.wsPort, topic);
  healthy.auth(token);
  t.same(await healthy.next(), { type: 'auth_ok' });
  const stalled = await stalledClient(worker.wsPort, topic, token);

  // 24 MiB in 32 KiB pushes: far more than the kernel's socket buffers plus the worker's per-socket limit.
  const count = 768;
  const filler = 'x'.repeat(32 * 1024);
  let healthyReceived = 0;
  const healthyDone = new Promise<void>((resolve) => {
    healthy.ws.on('message', () => {
      if (++healthyReceived === count) resolve();
    });
  });
  for (let n = 0; n < count; n++) {
    const reply = await publish(worker.internalPort, topic, { n, filler });
    if (reply.status !== 200) t.fail(`publish ${n}: ${reply.status}`);
  }
  await healthyDone;
  t.equal(healthyReceived, count, 'the reading client got every push');

  // The stalled socket stays backed up past the timeout and is closed by the worker.
  const deadline = Date.now() + 5000;
  while (worker.slowConsumersClosed() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.equal(worker.slowConsumersClosed(), 1, 'the slow consumer was closed');

  stalled.socket.resume();
  const bytes = await stalled.ended;
  const published = count * filler.length;
  t.ok(bytes < published / 2, `frames were skipped for the stalled socket (${bytes} of ${published} bytes reached it)`);
  healthy.close();
});
