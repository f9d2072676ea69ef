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
export async function send(url: string, options: HttpSend = {}): Promise<HttpAnswer> {
  if (USE_FETCH) {
    const response = await fetch(url, { method: options.method ?? 'GET', headers: asked(options), body: options.body });
    return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
  }
  const { status, encoding, raw } = await exchange(url, options, true);
  return { status, body: encoding === 'gzip' ? await inflate(raw) : raw };
}

/** One request whose answer is read but not kept: its status once the whole answer has arrived. */
export async function sendDiscarding(url: string, options: HttpSend = {}): Promise<number> {
  if (USE_FETCH) return (await send(url, options)).status;
  return (await exchange(url, options, false)).status;
}

function asked({ headers = {}, gzip = false }: HttpSend): Record<string, string> {
  return { ...headers, ...(gzip ? { 'accept-encoding': 'gzip' } : {}) };
}

/** The request over node:http; the answer's bytes are gathered only when `keep`. */
function exchange(url: string, options: HttpSend, keep: boolean): Promise<{ status: number; encoding: string | undefined; raw: Buffer }> {
  const { method = 'GET', body } = options;
  const headers = body === undefined ? asked(options) : { ...asked(options), 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const sent = request(url, { method, agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => (keep ? chunks.push(chunk) : undefined));
      response.on('end', () => resolve({ status: response.statusCode!, encoding: response.headers['content-encoding'], raw: Buffer.concat(chunks) }));
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
