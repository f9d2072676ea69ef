import { loadConfig } from '../config.js';
import { UsageError, type Command } from './command.js';

/**
 * `logbook worker`: the live-update worker on its own, without the API and without PostgreSQL.
 * Its flags are parsed by the worker module itself (one definition of them); the secret comes
 * from WORKER_SECRET or the config's worker.secret.
 */
export const workerCommand: Command = {
  name: 'worker',
  usage: 'worker [--ws-port 9000] [--internal-port 9001] [--ws-bind ADDR] [--internal-bind ADDR] [--config FILE]',
  options: {
    'ws-port': { type: 'string' },
    'internal-port': { type: 'string' },
    'ws-bind': { type: 'string' },
    'internal-bind': { type: 'string' },
    config: { type: 'string' },
  },
  async run({ values, logger }) {
    const config = loadConfig(typeof values.config === 'string' ? values.config : undefined);
    const argv = Object.entries(values)
      .filter(([name, value]) => name !== 'config' && typeof value === 'string')
      .flatMap(([name, value]) => [`--${name}`, value as string]);
    // Loaded on demand: the native WebSocket module is only needed by this command.
    const { runWorker, workerOptionsFromCli } = await import('../worker/index.js');
    let options;
    try {
      options = workerOptionsFromCli({ argv, config, logger });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    await runWorker(options);
  },
};
