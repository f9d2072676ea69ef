import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import Koa from 'koa';
import t from 'tap';
import { compress } from '../../lib/http/middleware/compress.js';
import { errorHandler } from '../../lib/http/middleware/errorHandler.js';
import { createLogger } from '../../lib/log.js';

/**
 * The compression middleware over real HTTP, with streamed answers of chosen sizes and failures:
 * a stream that ends within its first 64 KiB is compressed in one call, a longer one through a
 * gzip stream; a failure before the first 64 KiB are out is an error envelope, not a cut body.
 */

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The connection ended before the body's end. */
  cut: boolean;
}

function rawGet(url: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks), cut: false }));
      response.on('error', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks), cut: true }));
    }).on('error', reject).end();
  });
}

/** `pieces` pieces of `size` bytes each (a repeated line, as text answers are), then a failure when `failAfter` pieces are out. */
function pieces(count: number, size: number, failAfter: number | null = null): Readable {
  const line = Buffer.from('{"call":"DL1ABC","band":"20m","mode":"FT8"},\n');
  const piece = Buffer.alloc(size, line);
  let sent = 0;
  return new Readable({
    read() {
      if (failAfter !== null && sent === failAfter) {
        this.destroy(new Error('the database went away'));
        return;
      }
      if (sent === count) {
        this.push(null);
        return;
      }
      sent++;
      // Each piece on its own turn of the event loop, as COPY output arrives.
      setImmediate(() => this.push(piece));
    },
  });
}

t.test('streamed answers under gzip', async (t) => {
  const app = new Koa();
  app.use(errorHandler(createLogger({}, true)));
  app.use(compress);
  app.use(async (ctx) => {
    // /<pieces>/<bytes each>[/<pieces before the failure>]
    const [count, size, failAfter] = ctx.path.slice(1).split('/').map(Number);
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = pieces(count!, size!, failAfter ?? null);
  });
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  t.test('a short stream is compressed in one call: gzip with a length', async (t) => {
    const answer = await rawGet(`${base}/10/2000`);
    t.equal(answer.status, 200);
    t.equal(answer.headers['content-encoding'], 'gzip');
    t.equal(Number(answer.headers['content-length']), answer.body.length, 'sent whole, with its length');
    t.equal(gunzipSync(answer.body).length, 20_000);
  });

  t.test('a stream longer than 64 KiB goes on through a gzip stream, every byte of it', async (t) => {
    const answer = await rawGet(`${base}/300/1000`);
    t.equal(answer.status, 200);
    t.equal(answer.headers['content-encoding'], 'gzip');
    t.equal(answer.headers['content-length'], undefined, 'streamed');
    t.equal(answer.headers['transfer-encoding'], 'chunked');
    t.equal(gunzipSync(answer.body).length, 300_000);
  });

  t.test('a stream under 1 KiB is sent as it is', async (t) => {
    const answer = await rawGet(`${base}/1/500`);
    t.equal(answer.headers['content-encoding'], undefined);
    t.equal(answer.body.length, 500);
  });

  t.test('a stream failing within its first 64 KiB is answered with the error envelope', async (t) => {
    const answer = await rawGet(`${base}/10/2000/3`);
    t.equal(answer.status, 500);
    t.equal((JSON.parse(answer.body.toString('utf8')) as { error: { code: string } }).error.code, 'internal_error');
  });

  t.test('a stream failing after its first 64 KiB are out cuts the answer short', async (t) => {
    const answer = await rawGet(`${base}/300/1000/200`);
    t.equal(answer.status, 200);
    t.ok(answer.cut, 'the client sees the answer was not whole');
  });
});
