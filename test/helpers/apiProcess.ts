/**
 * The API as production runs it: `logbook serve` in its own Node process, on a free port, with
 * a config file of the test's choosing. Its log lines (stderr) are kept for assertions.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis.js';
import { logbookBin } from './bin.js';

export interface ApiProcess {
  url: string;
  /** Log lines printed so far, parsed. */
  logLines(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
  /** Ends the process as a crash or an OOM killer would: SIGKILL, nothing cleaned up. */
  kill(): Promise<void>;
}

export async function spawnApiProcess(databaseUrl: string, config: Record<string, unknown>): Promise<ApiProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'logbook-api-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify(config));
  const port = await freePort();
  const child = spawn(process.execPath, [logbookBin, 'serve', '--workers', '1', '--port', String(port), '--config', configFile], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOGBOOK_CONFIG: '', LOGBOOK_QUIET: '', WORKER_SECRET: '', REDIS_URL: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  let partial = '';
  child.stderr.setEncoding('utf8');
  const listening = new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: string) => {
      partial += chunk;
      for (let newline = partial.indexOf('\n'); newline >= 0; newline = partial.indexOf('\n')) {
        const line = partial.slice(0, newline);
        partial = partial.slice(newline + 1);
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          lines.push(parsed);
          if (parsed.msg === 'listening') resolve();
        } catch {
          lines.push({ msg: line });
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`logbook serve exited early (${code}): ${lines.map((l) => l.msg).join(' | ')}`)));
  });
  const startUp = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await listening.finally(() => clearTimeout(startUp));
  return {
    url: `http://127.0.0.1:${port}`,
    logLines: () => lines,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
  };
}
