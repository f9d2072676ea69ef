/**
 * The heavy clients of benchmarks/abandon.ts in a process of their own: `count` list requests
 * started over one second, each aborted after `abandonMs`. Run apart from the client being timed
 * because 100 fetches (their gunzip, their aborts) in one event loop delayed it by up to 120 ms
 * (the timing process's loop delay p99 86–88 ms, 2026-11-27): a logger's GET does not share an
 * event loop with other people's sync tools. node:http rather than fetch, and the gzip answer
 * not inflated: fetch's machinery and the inflate took up to a whole core of the two the server
 * runs on (until 2026-11-27, seventh session, fetch).
 *
 * startAbandonedLists forks this module and waits for it to be ready; the clients start when
 * their outcome is asked for, and the child reports { abandoned, answered } when done.
 */
import { fork } from 'node:child_process';
import { get } from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export interface AbandonedListsJob {
  url: string;
  headers: Record<string, string>;
  count: number;
  abandonMs: number;
}

export interface AbandonedListsOutcome {
  abandoned: number;
  answered: number;
}

/**
 * Loads the heavy clients in a child process (a second or so of start-up, not to be counted in
 * the window); `start()` sets them off and resolves with their outcome once every one has ended.
 */
export async function loadAbandonedLists(job: AbandonedListsJob): Promise<{ start(): Promise<AbandonedListsOutcome> }> {
  const child = fork(fileURLToPath(import.meta.url), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await once(child, 'message');
  return {
    async start() {
      const exited = once(child, 'exit');
      child.send(job);
      const [outcome] = (await once(child, 'message')) as [AbandonedListsOutcome];
      await exited;
      return outcome;
    },
  };
}

/** One heavy list over a connection of its own, gzip asked for (not inflated), given up after `abandonMs`. */
function abandonedList(url: string, headers: Record<string, string>, abandonMs: number): Promise<'abandoned' | 'answered'> {
  return new Promise((resolve) => {
    const sent = get(url, { headers: { ...headers, 'accept-encoding': 'gzip' }, agent: false }, (response) => {
      response.on('data', () => undefined);
      response.on('end', () => {
        clearTimeout(timer);
        resolve('answered');
      });
      response.on('error', () => undefined);
    });
    // Destroyed by the abandon below: nothing to report.
    sent.on('error', () => undefined);
    const timer = setTimeout(() => {
      sent.destroy();
      resolve('abandoned');
    }, abandonMs);
  });
}

async function run({ url, headers, count, abandonMs }: AbandonedListsJob): Promise<AbandonedListsOutcome> {
  const outcomes = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await sleep((i * 20) % 1000);
      return abandonedList(url, headers, abandonMs);
    }),
  );
  return { abandoned: outcomes.filter((outcome) => outcome === 'abandoned').length, answered: outcomes.filter((outcome) => outcome === 'answered').length };
}

if (process.send !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  const jobMessage = once(process, 'message') as Promise<[AbandonedListsJob]>;
  process.send('ready');
  const [job] = await jobMessage;
  process.send(await run(job), () => process.disconnect());
}
