/**
 * Spreads an API token's revocation to every worker: each records it (new sockets with browser
 * tokens minted from it are refused) and closes its own sockets opened with such tokens.
 *
 * Alone, the worker applies it locally. With Redis, the revocation is also stored as the key
 * `<prefix>revoked:<token id>` (expiring with it) and announced on the channel
 * `<prefix>revocations` as `{origin_id, token_id, until}`; every other worker applies what it
 * hears, and a worker that starts, or gets Redis back after an outage, loads the stored keys, so
 * none misses a revocation made while it was away. A channel of its own keeps these messages
 * away from the original worker's publish channel, which mixed fleets share.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import { isTokenId, type RevocationList } from './revocations.js';

/** What a worker does with a revocation it learns of: record it, close the sockets it concerns. */
export type ApplyRevocation = (tokenId: number, until: number) => void;

export interface RevocationRelay {
  revoke(tokenId: number, until: number): Promise<void>;
}

export function applyRevocation(list: RevocationList, closeSockets: (tokenId: number) => number, logger: Logger): ApplyRevocation {
  return (tokenId, until) => {
    const fresh = list.add(tokenId, until);
    const closed = closeSockets(tokenId);
    if (fresh || closed > 0) logger.info('api token revoked: its browser tokens are refused', { token_id: tokenId, sockets_closed: closed });
  };
}

export function createLocalRevocationRelay(apply: ApplyRevocation): RevocationRelay {
  return {
    async revoke(tokenId, until) {
      apply(tokenId, until);
    },
  };
}

const SCAN_BATCH = 1000;

export async function createRedisRevocationRelay({
  command,
  subscriber,
  prefix,
  apply,
  logger,
}: {
  command: Redis;
  /** The fan-out's subscriber connection: one connection may subscribe to several channels. */
  subscriber: Redis;
  prefix: string;
  apply: ApplyRevocation;
  logger: Logger;
}): Promise<RevocationRelay> {
  const originId = randomBytes(8).toString('hex');
  const channel = `${prefix}revocations`;
  const keyPrefix = `${prefix}revoked:`;

  /** Applies every stored revocation: at start, and after each reconnection (messages may have been missed). */
  async function load(): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await command.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', SCAN_BATCH);
      const values = keys.length > 0 ? await command.mget(...keys) : [];
      keys.forEach((key, i) => {
        const tokenId = Number(key.slice(keyPrefix.length));
        const until = Number(values[i]);
        if (isTokenId(tokenId) && Number.isFinite(until)) apply(tokenId, until);
      });
      cursor = next;
    } while (cursor !== '0');
  }

  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel) return;
    try {
      const value = JSON.parse(message) as Record<string, unknown>;
      if (value.origin_id === originId) return;
      if (isTokenId(value.token_id) && typeof value.until === 'number') apply(value.token_id, value.until);
    } catch {
      logger.warn('cluster: malformed revocation ignored');
    }
  });
  const join = async (): Promise<void> => {
    try {
      await subscriber.subscribe(channel);
      await load();
    } catch (err) {
      logger.warn('cluster: revocations not loaded; retrying when redis answers again', { error: (err as Error).message });
    }
  };
  subscriber.on('ready', () => void join());
  command.on('ready', () => void join());
  if (subscriber.status === 'ready') await join();

  return {
    async revoke(tokenId, until) {
      apply(tokenId, until);
      const ttlMs = Math.max(1000, (until + 1) * 1000 - Date.now());
      try {
        await command.set(`${keyPrefix}${tokenId}`, String(until), 'PX', ttlMs);
        await command.publish(channel, JSON.stringify({ origin_id: originId, token_id: tokenId, until }));
      } catch (err) {
        // The caller is told: the application retries, so the other workers hear of it later.
        throw new Error(`revocation not relayed through redis: ${(err as Error).message}`);
      }
    },
  };
}
