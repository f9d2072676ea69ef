import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ownBin = join(import.meta.dirname, '..', '..', 'bin', 'logbook.js');

/** How long stop() waits after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 10_000;

/**
 * A `logbook serve` process (the real command, needs `npm run build`) on a free port. With
 * SERVE_PROF=<folder> in the environment it writes V8 CPU profiles there (`node --cpu-prof`).
 */
export interface ServeProcess {
  url: string;
  pid: number;
  /** Peak RSS (VmHWM) of the serve process, in MiB: with --workers 1 the one process that serves. */
  peakRssMb(): number;
  /** Peak RSS (MiB) of each worker of `--workers N` (N ≥ 2): the processes that serve. */
  workersPeakRssMb(): number[];
  stop(): Promise<void>;
}

export interface ServeOptions {
  /** `--workers` (default 1: the one process serves, so VmHWM is the server's). */
  workers?: number;
  /** A configuration (config.json) for the process, written to a temporary file. */
  config?: Record<string, unknown>;
  /** The `bin/logbook.js` to run (another checkout's, say); this one's by default. */
  bin?: string;
}

/** Peak RSS (VmHWM) of a process, in MiB. */
function peakRssMbOf(pid: number): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return hwm ? Number(hwm[1]) / 1024 : NaN;
}

export async function startServe(databaseUrl: string, { workers = 1, config, bin = ownBin }: ServeOptions = {}): Promise<ServeProcess> {
  const args = [bin, 'serve', '--workers', String(workers), '--port', '0'];
  if (config !== undefined) {
    const path = join(mkdtempSync(join(tmpdir(), 'logbook-bench-')), 'config.json');
    writeFileSync(path, JSON.stringify(config));
    args.push('--config', path);
  }
  const child = spawn(process.execPath, [...(process.env.SERVE_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.SERVE_PROF] : []), ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOGBOOK_CONFIG: '', LOGBOOK_QUIET: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    const listen = (text: string) => {
      log += text;
      const listening = /"msg":"listening".*?"url":"([^"]+)"/.exec(log);
      if (!listening) return;
      // The request log of every request would be written to this pipe from now on: drop it.
      child.stderr.off('data', listen);
      child.stderr.resume();
      resolve(listening[1]!);
    };
    child.stderr.on('data', listen);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${log}`)));
  });
  return {
    url,
    pid: child.pid!,
    peakRssMb: () => peakRssMbOf(child.pid!),
    workersPeakRssMb: () =>
      readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map((pid) => peakRssMbOf(Number(pid))),
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      // A process still busy with what an attack left it (a benchmark's doing) is not waited for long.
      const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(kill);
    },
  };
}
