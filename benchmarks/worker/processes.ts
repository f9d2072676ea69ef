/**
 * What the worker benchmarks share: child processes started with the open-file limit raised
 * to the hard limit, a process's memory and CPU from /proc, and the worker's benchmark process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const HERE = fileURLToPath(new URL('.', import.meta.url));

/** Node with tsx under a shell that first raises the open-file limit to the hard limit (a socket is a descriptor). */
export function spawnNode(children: ChildProcess[], script: string, scriptArgs: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const command = `ulimit -n "$(ulimit -Hn)"; exec "${process.execPath}" --import tsx "$@"`;
  const child = spawn('sh', ['-c', command, 'sh', script, ...scriptArgs], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, LOGBOOK_QUIET: '1', ...env },
  });
  children.push(child);
  return child;
}

export interface WorkerProc {
  child: ChildProcess;
  wsPort: number;
  internalPort: number;
}

/** benchmarks/worker/serve.ts in its own process; `wsPort` 0 takes a free port. */
export async function startWorkerProcess(children: ChildProcess[], secret: string, impl: 'uws' | 'ws', redis?: { url: string; prefix: string }, wsPort = 0): Promise<WorkerProc> {
  const extra = redis ? ['--redis', redis.url, '--prefix', redis.prefix] : [];
  const child = spawnNode(children, `${HERE}serve.ts`, ['--impl', impl, '--ws-port', String(wsPort), ...extra], { WORKER_SECRET: secret });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { child, ...(JSON.parse(line.toString()) as { wsPort: number; internalPort: number }) };
}

/** CPU seconds (user + system) the process has used so far; /proc reports clock ticks of 1/100 s. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export function memory(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}
