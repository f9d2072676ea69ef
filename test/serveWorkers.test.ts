import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabase } from './helpers/db.js';
import { WORKER_V8_FLAGS } from '../lib/cli/serveProcesses.js';
import { logbookBin } from './helpers/bin.js';
import { pagePoolSizeFor } from '../lib/db/database.js';
import { createOperator } from './helpers/fixtures.js';
import { seedLongQsos } from './helpers/qsoRows.js';

/** A GET on a connection of its own: the cluster hands out connections, not requests. */
function getStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode!));
    });
    req.once('error', reject);
    req.end();
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `logbook serve` on a free port with these arguments; resolves with its URL once it listens. */
async function startServe(t: Test, databaseUrl: string, args: string[]): Promise<{ url: string; child: ReturnType<typeof spawn>; exited: Promise<number | null>; log: () => string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, LOGBOOK_QUIET: '0' };
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [logbookBin, 'serve', '--port', '0', ...args], { env });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => void (log += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(() => void child.kill('SIGKILL'));
  const url = await new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const match = /"msg":"listening".*"url":"([^"]+)"/.exec(log);
      if (match) {
        clearInterval(poll);
        resolve(match[1]!);
      }
    }, 20);
    void exited.then(() => reject(new Error(`serve exited: ${log}`)));
  });
  return { url, child, exited, log: () => log };
}

t.test('the instance runs as many page statements at once as it has cores, whatever --workers is', async (t) => {
  const db = await testDatabase(t);
  // Two owners: one owner holds at most half a pool's connections (lib/db/ownerShare.ts).
  const owners = [await createOperator(db.pool), await createOperator(db.pool)];
  for (const owner of owners) await seedLongQsos(db.pool, owner.stationId, 5000);
  // Pages of several MB whose clients read nothing: each holds its page connection (its COPY,
  // in its snapshot) until the stall timeout, so the held ones are the page connections there are.
  const heldPages = async () => (await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND state <> 'idle' AND query LIKE 'COPY (SELECT%'`)).rows[0]!.n;
  // Without read-ahead, which would let a page give its connection back before it is read.
  const config = join(mkdtempSync(join(tmpdir(), 'logbook-pages-')), 'config.json');
  writeFileSync(config, JSON.stringify({ page_read_ahead_bytes: 0 }));
  for (const workers of [2, 1]) {
    const expected = pagePoolSizeFor(workers) * workers;
    const { url, child, exited } = await startServe(t, db.url, ['--workers', String(workers), '--config', config]);
    const { hostname, port, host } = new URL(url);
    const sockets: Socket[] = [];
    // More than each worker's share (connections are dealt to the workers in turn).
    for (let i = 0; i < expected + 2 * workers; i++) {
      const socket = connect(Number(port), hostname);
      await once(socket, 'connect');
      socket.pause();
      socket.write(`GET /api/v2/qso?per_page=5000 HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${owners[i % 2]!.token}\r\n\r\n`);
      sockets.push(socket);
    }
    let held = 0;
    for (let i = 0; i < 100 && held < expected; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      held = await heldPages();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    t.equal(await heldPages(), expected, `--workers ${workers}: ${expected} pages held at once, the others queued`);
    for (const socket of sockets) socket.destroy();
    child.kill('SIGTERM');
    t.equal(await exited, 0, `--workers ${workers}: stops cleanly`);
  }
});

t.test('serve --workers 2: both serve, rate limits shared, all stop on SIGTERM', async (t) => {
  const db = await testDatabase(t);
  const dir = mkdtempSync(join(tmpdir(), 'logbook-workers-'));
  const config = join(dir, 'config.json');
  // No rate_limit_store: with several processes the default is a shared one (postgres here).
  writeFileSync(config, JSON.stringify({ api_rate_limits: { check_auth: { requests: 4, window: 60 } } }));
  const { url, child, exited, log } = await startServe(t, db.url, ['--workers', '2', '--config', config]);

  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) statuses.push(await getStatus(`${url}/api/check_auth`));
  t.equal(statuses.filter((status) => status === 401).length, 4, 'four answers in the window, whichever worker counted them');
  t.equal(statuses.filter((status) => status === 429).length, 8);

  // Let the last request lines reach the log.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const served = log().split('\n').filter((line) => line.includes('"msg":"request"')).map((line) => JSON.parse(line) as { worker: number; pid: number });
  const workers = new Map(served.map((line) => [line.worker, line.pid]));
  t.same([...workers.keys()].sort(), [1, 2], 'both workers answered');
  t.not(workers.get(1), workers.get(2), 'in processes of their own');
  if (existsSync('/proc')) {
    for (const pid of workers.values()) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      t.ok(WORKER_V8_FLAGS.every((flag) => argv.includes(flag)), `worker ${pid} runs with ${WORKER_V8_FLAGS.join(' ')}`);
    }
  }

  child.kill('SIGTERM');
  t.equal(await exited, 0, 'exit status 0 after graceful shutdown');
  t.equal(log().match(/"msg":"shutting down"/g)?.length, 1, 'one line says so: the primary');
  for (const pid of workers.values()) t.notOk(alive(pid), `worker ${pid} is gone`);
});
