import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time the server's processes and the database's backends spend, read from /proc (Linux), so
 * that a benchmark can say where a request's time goes: user plus system time, summed over the
 * `logbook serve` process and its workers, and over every backend whose process title names the
 * database (`postgres: <user> <database> …`, as PostgreSQL sets it). /proc counts in clock ticks
 * of 10 ms: per request only an average over many requests means anything.
 */

const TICK_MS = 10;

/** A process's fields after its command name in /proc/<pid>/stat (state, ppid, …), or null when it is gone. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** utime + stime in milliseconds (fields 14 and 15 of stat), 0 for a process that is gone. */
function cpuMs(pid: number): number {
  const fields = statFields(pid);
  return fields === null ? 0 : (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function processIds(): number[] {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);
}

function titleOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

export interface CpuSample {
  /** The server's processes, ms; null when the server is this process (its client work would count too). */
  server: number | null;
  /** Each backend's, ms, by process id. */
  backends: Map<number, number>;
}

/** CPU spent between two samples, ms. */
export interface CpuSpent {
  server: number | null;
  database: number;
}

/**
 * The backends' CPU between two samples, each backend counted against its own earlier reading: a
 * backend that came since counts from 0, and one that ended (a pool closing an idle connection)
 * counts nothing, where the difference of two sums would subtract its whole life.
 */
export function cpuSpent(before: CpuSample, after: CpuSample): CpuSpent {
  let database = 0;
  for (const [pid, ms] of after.backends) database += ms - (before.backends.get(pid) ?? 0);
  return { server: before.server === null || after.server === null ? null : after.server - before.server, database };
}

/** A backend's process title: `postgres: [cluster: ]<user> <database> <client> <state>`. */
const BACKEND_TITLE = /^postgres: (?:\S+: )?\S+ (\S+) /;

export class CpuMeter {
  private readonly serverPids: number[] | null;

  /** `serverPid`: the `logbook serve` process (its workers are found as its children), or null. */
  constructor(serverPid: number | null, private readonly database: string) {
    this.serverPids = serverPid === null ? null : [serverPid, ...processIds().filter((pid) => Number(statFields(pid)?.[1]) === serverPid)];
  }

  /** Whether this machine has /proc to read (else no meter: the benchmarks leave the columns out). */
  static available(): boolean {
    return existsSync('/proc/self/stat');
  }

  sample(): CpuSample {
    // Backends come and go with the pools' connections: found again on every sample.
    const backends = processIds().filter((pid) => BACKEND_TITLE.exec(titleOf(pid))?.[1] === this.database);
    return {
      server: this.serverPids === null ? null : this.serverPids.reduce((sum, pid) => sum + cpuMs(pid), 0),
      backends: new Map(backends.map((pid) => [pid, cpuMs(pid)])),
    };
  }
}
