/**
 * The benchmarks' HTTP client: node:http over kept-alive connections, as loggers and sync tools
 * talk to the server. Until 2026-11-27 the benchmarks used fetch, whose own CPU (0.5–1.2 ms a
 * request) and garbage collection (pauses of 4–8 ms every few hundred requests, seen as 10–15 ms
 * spikes in the cheapest request's latency) were counted in the server's latencies; `--fetch`
 * on the command line keeps fetch, for comparison.
 */
import { request, Agent } from 'node:http';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';

const inflate = promisify(gunzip);
export const USE_FETCH = process.argv.includes('--fetch');

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

export interface HttpAnswer {
  status: number;
  /** The body, decoded when the server compressed it. */
  body: Buffer;
}

export interface HttpSend {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Ask for gzip (and decode it), as fetch does by default. */
  gzip?: boolean;
}

/** One request, its whole answer read (and decoded). */
export async function send(url: string, { method = 'GET', headers = {}, body, gzip = false }: HttpSend = {}): Promise<HttpAnswer> {
  const asked = { ...headers, ...(gzip ? { 'accept-encoding': 'gzip' } : {}) };
  if (USE_FETCH) {
    const response = await fetch(url, { method, headers: asked, body });
    return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
  }
  const { status, encoding, raw } = await new Promise<{ status: number; encoding: string | undefined; raw: Buffer }>((resolve, reject) => {
    const sent = request(url, { method, agent, headers: body === undefined ? asked : { ...asked, 'content-length': String(Buffer.byteLength(body)) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, encoding: response.headers['content-encoding'], raw: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
  return { status, body: encoding === 'gzip' ? await inflate(raw) : raw };
}

/** One request whose answer is not kept: its status once the whole answer has arrived. */
export function sendDiscarding(url: string, { method = 'GET', headers = {}, body, gzip = false }: HttpSend = {}): Promise<number> {
  if (USE_FETCH) return send(url, { method, headers, body, gzip }).then((answer) => answer.status);
  return new Promise((resolve, reject) => {
    const asked = { ...headers, ...(gzip ? { 'accept-encoding': 'gzip' } : {}), ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) };
    const sent = request(url, { method, agent, headers: asked }, (response) => {
      response.on('data', () => undefined);
      response.on('end', () => resolve(response.statusCode!));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** Closes the kept-alive connections, so that the benchmark's process can end. */
export function closeConnections(): void {
  agent.destroy();
}
