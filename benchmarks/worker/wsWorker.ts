/**
 * Comparison worker built on the `ws` package and node:http, speaking the same
 * protocol as lib/worker (internal register/publish with the secret header,
 * `/ws?topic=` upgrade checks, auth frame with the browser token, push frames).
 * Deliberately minimal but not naive: the push frame is encoded once per
 * publish and slow sockets are skipped, as in the real worker. Benchmark only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { verifyBrowserToken } from '../../lib/worker/browserToken.js';
import { createSecretCheck } from '../../lib/worker/internalApi.js';

const MAX_BUFFERED = 64 * 1024;

export interface ComparisonWorker {
  wsPort: number;
  internalPort: number;
  close(): Promise<void>;
}

function listen(server: ReturnType<typeof createServer>, port: number, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(port, host, () => resolve((server.address() as AddressInfo).port)));
}

export async function startWsWorker({ secret, wsPort, internalPort }: { secret: string; wsPort: number; internalPort: number }): Promise<ComparisonWorker> {
  const secretMatches = createSecretCheck(secret);
  const registered = new Map<string, boolean>();
  const subscribers = new Map<string, Set<WebSocket>>();

  const internal = createServer((req: IncomingMessage, res: ServerResponse) => {
    const reply = (status: number, body = '') => res.writeHead(status, { 'Content-Type': 'text/plain' }).end(body);
    if (!secretMatches(String(req.headers['x-worker-secret'] ?? ''))) return reply(403, 'forbidden\n');
    if (req.method === 'GET' && req.url?.startsWith('/internal/status')) {
      let sockets = 0;
      for (const set of subscribers.values()) sockets += set.size;
      return reply(200, JSON.stringify({ status: 'ok', registered_topics: registered.size, connected_sockets: sockets }));
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: { topic?: string; payload?: unknown; meta?: { require_token?: boolean } };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        return reply(400, 'bad request\n');
      }
      if (!body.topic) return reply(400, 'missing topic\n');
      if (req.url === '/internal/register') {
        registered.set(body.topic, body.meta?.require_token ?? false);
        return reply(200);
      }
      if (req.url === '/internal/publish' || req.url === '/internal/push') {
        if (!registered.has(body.topic)) return reply(404, 'topic not registered\n');
        const frame = Buffer.from(`{"type":"push","payload":${JSON.stringify(body.payload)}}`);
        for (const ws of subscribers.get(body.topic) ?? []) {
          if (ws.bufferedAmount <= MAX_BUFFERED) ws.send(frame, { binary: false });
        }
        return reply(200);
      }
      reply(404, 'not found\n');
    });
  });

  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 4096 });
  const wsHttp = createServer((_req, res) => res.writeHead(404).end());
  wsHttp.on('upgrade', (req: IncomingMessage, socket, head) => {
    const topic = new URL(req.url ?? '/', 'http://x').searchParams.get('topic') ?? '';
    const refuse = (status: string) => socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\n\r\n`);
    if (!topic) return refuse('400 Bad Request');
    const requireToken = registered.get(topic);
    if (requireToken === undefined) return refuse('404 Not Found');
    wss.handleUpgrade(req, socket, head, (ws) => {
      const timer = setTimeout(() => ws.close(1008), 10_000);
      ws.once('message', (data) => {
        clearTimeout(timer);
        let token: unknown;
        try {
          token = (JSON.parse(data.toString()) as { token?: unknown }).token;
        } catch {
          token = undefined;
        }
        if (typeof token !== 'string' || (requireToken && !verifyBrowserToken(secret, token, topic).ok)) {
          ws.send(JSON.stringify({ type: 'error', code: 'unauthorized', message: 'invalid or expired token' }));
          return ws.close(1008);
        }
        ws.send('{"type":"auth_ok"}');
        let set = subscribers.get(topic);
        if (!set) subscribers.set(topic, (set = new Set()));
        set.add(ws);
        ws.once('close', () => set.delete(ws));
      });
    });
  });

  return {
    wsPort: await listen(wsHttp, wsPort, '127.0.0.1'),
    internalPort: await listen(internal, internalPort, '127.0.0.1'),
    async close() {
      for (const client of wss.clients) client.terminate();
      await Promise.all([new Promise((r) => internal.close(r)), new Promise((r) => wsHttp.close(r))]);
    },
  };
}
