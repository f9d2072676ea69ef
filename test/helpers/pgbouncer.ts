/**
 * A throw-away pgbouncer in front of the test database: Debian's binary (or $PGBOUNCER_BIN) with
 * an ini in a temporary folder, on a free port of 127.0.0.1, trusting the user the test database
 * is reached as. Null when the binary is absent (the test then skips with NO_PGBOUNCER_REASON).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Test } from 'tap';
import { freePort } from './redis.js';

const BINARY = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

export const NO_PGBOUNCER_REASON = `no pgbouncer at ${BINARY} (set PGBOUNCER_BIN, or install Debian's pgbouncer)`;

export function pgbouncerInstalled(): boolean {
  try {
    accessSync(BINARY, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface PgbouncerOptions {
  /** pgbouncer's pool_mode; absent: its default configuration (session pooling, no startup parameter ignored). */
  poolMode?: 'session' | 'transaction';
}

/**
 * Starts pgbouncer for `databaseUrl` and returns the URL of the same database through it,
 * stopped at the test's end. pgbouncer refuses to run as root: then it drops to `postgres`.
 */
export async function startPgbouncer(t: Test, databaseUrl: string, options: PgbouncerOptions = {}): Promise<string> {
  const target = new URL(databaseUrl);
  const user = decodeURIComponent(target.username || 'postgres');
  const folder = mkdtempSync(join(tmpdir(), 'logbook-pgb-'));
  chmodSync(folder, 0o755);
  const port = await freePort();
  const ini = [
    '[databases]',
    `* = host=${target.hostname} port=${target.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(folder, 'userlist.txt')}`,
    ...(options.poolMode ? [`pool_mode = ${options.poolMode}`, 'max_client_conn = 200', 'default_pool_size = 20'] : []),
  ];
  writeFileSync(join(folder, 'userlist.txt'), `"${user}" ""\n`, { mode: 0o644 });
  writeFileSync(join(folder, 'pgbouncer.ini'), `${ini.join('\n')}\n`, { mode: 0o644 });
  const asRoot = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
  const child = spawn(BINARY, [...asRoot, join(folder, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.teardown(async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(folder, { recursive: true, force: true });
  });
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  for (let attempt = 0; ; attempt++) {
    const probe = new pg.Client({ connectionString: url.toString() });
    try {
      await probe.connect();
      await probe.query('SELECT 1');
      await probe.end();
      return url.toString();
    } catch (error) {
      await probe.end().catch(() => undefined);
      if (attempt === 50 || child.exitCode !== null) throw new Error(`pgbouncer did not start: ${(error as Error).message}\n${log}`);
      await sleep(100);
    }
  }
}
