import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Runs `check` over and over (a few milliseconds apart) while concurrent writers work, e.g. a
 * comparison of maintained counts with counts in one snapshot; `stop()` waits for the round in
 * flight and returns every problem any round reported.
 */
export function repeatCheck(check: () => Promise<string[]>, pauseMs = 3): { stop(): Promise<string[]> } {
  let running = true;
  const problems: string[] = [];
  const loop = (async () => {
    while (running) {
      problems.push(...(await check()));
      await sleep(pauseMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return problems;
    },
  };
}
