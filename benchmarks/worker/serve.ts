/**
 * Runs one worker for the benchmark in its own process and prints its ports as
 * one JSON line. `--impl uws` is the real worker (lib/worker), `--impl ws` the
 * comparison worker; `--ws-port` a fixed port (a restarted worker comes back where it was).
 * Exits on SIGTERM, or when the parent goes away.
 */
import { parseArgs } from 'node:util';
import { startWorker } from '../../lib/worker/index.js';
import { startWsWorker } from './wsWorker.js';

const { values } = parseArgs({
  options: {
    impl: { type: 'string', default: 'uws' },
    redis: { type: 'string' },
    prefix: { type: 'string' },
    'ws-port': { type: 'string', default: '0' },
  },
});
const secret = process.env.WORKER_SECRET ?? '';

const worker =
  values.impl === 'ws'
    ? await startWsWorker({ secret, wsPort: Number(values['ws-port']), internalPort: 0 })
    : await startWorker({ secret, wsPort: Number(values['ws-port']), internalPort: 0, wsBind: '127.0.0.1', redisUrl: values.redis, redisPrefix: values.prefix });

process.stdout.write(`${JSON.stringify({ wsPort: worker.wsPort, internalPort: worker.internalPort })}\n`);
const stop = () => void worker.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('disconnect', stop);
