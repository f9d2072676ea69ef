import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { mirrorsEqualTheLog } from '../helpers/mirrorScenario.js';

// MIRROR_SEEDS=4-40 runs more seeds (a soak, outside the suite's time).
const [firstSeed, lastSeed] = (process.env.MIRROR_SEEDS ?? '1-3').split('-').map(Number) as [number, number?];
for (let seed = firstSeed; seed <= (lastSeed ?? firstSeed); seed++) {
  t.test(`mirrors equal the log under concurrent writers (seed ${seed})`, async (t) => {
    const server = await startTestServer(t, { config: { import_batch_rows: 25 } });
    await mirrorsEqualTheLog(t, server, seed);
  });
}
