import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { buildConfig } from '../../lib/config.js';
import { createLogger, type Logger } from '../../lib/log.js';
import { startServer, type RunningServer } from '../../lib/server.js';
import type { EventPublisher } from '../../lib/services.js';
import { testDatabase } from './db.js';
import type { Database } from '../../lib/db/database.js';
import type { ResourceDefinition } from '../../lib/http/v2/resource.js';

export interface TestServer extends RunningServer {
  db: Database;
  /** fetch relative to the server, with an optional bearer token and JSON body. */
  request(path: string, init?: RequestOptions): Promise<TestResponse>;
}

export interface RequestOptions {
  method?: string;
  token?: string;
  json?: unknown;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body (undefined when the body is empty or not JSON). */
  // any: tests inspect arbitrary JSON shapes and assert on them member by member.
  body: any;
}

export async function startTestServer(
  t: Test,
  options: { config?: Record<string, unknown>; clock?: () => number; events?: EventPublisher; db?: Database; resources?: ResourceDefinition[]; logger?: Logger } = {},
): Promise<TestServer> {
  const db = options.db ?? (await testDatabase(t));
  // Job spools are named by job id, and ids restart in every test database: test files running
  // at once must not share a folder (a server's start-up removes the files its jobs do not hold).
  const config = { ...options.config };
  const jobs = (config.import_jobs ?? {}) as Record<string, unknown>;
  const spoolDir = jobs.spool_dir === undefined ? mkdtempSync(join(tmpdir(), 'logbook-test-jobs-')) : null;
  if (spoolDir) config.import_jobs = { ...jobs, spool_dir: spoolDir };
  const server = await startServer({
    config: buildConfig(config, {}),
    db,
    logger: options.logger ?? createLogger({}, true),
    port: 0,
    host: '127.0.0.1',
    clock: options.clock,
    events: options.events,
    resources: options.resources,
  });
  t.teardown(async () => {
    await server.close();
    if (spoolDir) rmSync(spoolDir, { recursive: true, force: true });
  });
  return {
    ...server,
    db,
    async request(path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.token) headers.authorization = `Bearer ${init.token}`;
      let body: BodyInit | undefined = typeof init.body === 'string' || init.body === undefined ? init.body : new Blob([new Uint8Array(init.body)]);
      if (init.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(init.json);
      }
      const response = await fetch(server.url + path, { method: init.method ?? 'GET', headers, body });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: response.status, headers: response.headers, text, body: parsed };
    },
  };
}
