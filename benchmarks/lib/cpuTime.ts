import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) spent so far by processes, read from /proc (Linux): a throughput
 * on a shared machine swings with its load, the CPU each request costs much less.
 */

const TICKS_PER_SECOND = 100;

interface ProcessTimes {
  pid: number;
  parent: number;
  command: string;
  seconds: number;
}

function processTimes(): ProcessTimes[] {
  const all: ProcessTimes[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // pid (comm) state ppid … utime(14) stime(15): comm may hold spaces, so split after its ')'.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    all.push({
      pid: Number(entry),
      parent: Number(fields[1]),
      command: stat.slice(stat.indexOf('(') + 1, close),
      seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
    });
  }
  return all;
}

/** CPU seconds of every PostgreSQL process and of the process tree under `root` (a serve process and its workers). */
export function cpuSeconds(root: number): { postgres: number; server: number } {
  const all = processTimes();
  const children = new Map<number, ProcessTimes[]>();
  for (const p of all) children.set(p.parent, [...(children.get(p.parent) ?? []), p]);
  let server = 0;
  const stack = all.filter((p) => p.pid === root);
  while (stack.length) {
    const p = stack.pop()!;
    server += p.seconds;
    stack.push(...(children.get(p.pid) ?? []));
  }
  const postgres = all.filter((p) => p.command === 'postgres').reduce((sum, p) => sum + p.seconds, 0);
  return { postgres, server };
}

/**
 * CPU seconds PostgreSQL's processes spend from now until stop(), backends that end meanwhile
 * included (a CLI's backend ends with it, taking its count out of /proc): each process is read
 * every 100 ms and counted at its last reading.
 */
export function watchPostgresCpu(): { stop(): number } {
  const read = () => new Map(processTimes().filter((p) => p.command === 'postgres').map((p) => [p.pid, p.seconds]));
  const first = read();
  const last = new Map(first);
  const timer = setInterval(() => {
    for (const [pid, seconds] of read()) last.set(pid, seconds);
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      for (const [pid, seconds] of read()) last.set(pid, seconds);
      let spent = 0;
      for (const [pid, seconds] of last) spent += seconds - (first.get(pid) ?? 0);
      return spent;
    },
  };
}
