import { workerUrls, type Config } from '../config.js';
import type { Logger } from '../log.js';
import { createPublisher, type Publisher } from './publisher.js';

/** The workers' publisher when `worker.url` (or `worker.urls`) and `worker.secret` are configured; else null. */
export function configuredPublisher(config: Config, logger: Logger): Publisher | null {
  const { secret, derived_keys: derivedKeys, timeout_ms: timeoutMs } = config.worker;
  const urls = workerUrls(config.worker);
  if (urls.length === 0 || !secret) return null;
  return createPublisher({ urls, secret, derivedKeys, timeoutMs, logger: logger.child({ component: 'live-publisher' }) });
}
