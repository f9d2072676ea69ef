/**
 * Revoking a v2 token must end the live sockets opened with browser tokens minted from it. Tokens
 * are revoked by `logbook token revoke`, another process, so the news comes through PostgreSQL:
 * a trigger NOTIFYs `logbook_token_revoked` with the token id when the revocation commits
 * (sql/014_token_revocation_notify.sql), and every API process LISTENs on a connection of its own
 * and hands the id to its publisher, which tells the workers (several processes telling them
 * the same is harmless: a revocation is idempotent).
 *
 * A notification sent while this connection was down is lost, so on every (re)connection the
 * tokens revoked within the last browser-token lifetime are sent again: a revocation made while
 * no API process was running, or during a lost connection, still reaches the workers.
 *
 * Behind a transaction-mode pooler LISTEN cannot work (the backend that listens changes with
 * every transaction), so without a direct connection (`database.listen_url`) the same read of
 * recent revocations runs every `pollMs` instead, each token sent once: revoked_at, not the
 * trigger, so a token deleted outright (its user deleted) is not seen this way.
 */
import pg from 'pg';
import type { Logger } from '../log.js';

export const REVOCATION_CHANNEL = 'logbook_token_revoked';

export interface RevocationListenerOptions {
  url: string;
  /** Browser-token lifetime: a revocation matters for this long after it is made. */
  tokenTtlSeconds: number;
  revoke(tokenId: number, until: number): void;
  logger: Logger;
  /** Wait before reconnecting after the connection is lost. Default 2000 ms. */
  reconnectMs?: number;
  /** Poll every so many ms instead of LISTENing (behind a transaction-mode pooler). */
  pollMs?: number;
}

export interface RevocationListener {
  close(): Promise<void>;
}

/** Slack for clocks: the worker compares `until` with its own clock. */
const CLOCK_SLACK_SECONDS = 60;

export async function listenForRevocations(options: RevocationListenerOptions): Promise<RevocationListener> {
  const { url, tokenTtlSeconds, revoke, logger, reconnectMs = 2000, pollMs } = options;
  const lifetime = tokenTtlSeconds + CLOCK_SLACK_SECONDS;
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let poll: NodeJS.Timeout | undefined;
  /** Polling: the tokens sent, until their revocation no longer matters (each is sent once). */
  const sent = new Map<number, number>();

  async function catchUp(on: pg.Client): Promise<void> {
    const { rows } = await on.query<{ id: number; until: number }>(
      `SELECT id, floor(extract(epoch FROM revoked_at))::bigint + $1::int AS until
         FROM api_tokens WHERE revoked_at > now() - make_interval(secs => $1)`,
      [lifetime],
    );
    const now = Math.floor(Date.now() / 1000);
    for (const [id, until] of sent) if (until < now) sent.delete(id);
    for (const row of rows) {
      // Listening, every catch-up sends them all again (a notification may have been lost).
      if (pollMs !== undefined) {
        if (sent.has(row.id)) continue;
        sent.set(row.id, Number(row.until));
      }
      revoke(row.id, Number(row.until));
    }
  }

  function pollNext(on: pg.Client): void {
    poll = setTimeout(() => {
      catchUp(on).then(() => client === on && pollNext(on), (err: Error) => {
        logger.warn('token revocations: cannot read them, reconnecting', { error: err.message });
        lost(on);
      });
    }, pollMs);
    poll.unref();
  }

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      const tokenId = Number(message.payload);
      if (message.channel === REVOCATION_CHANNEL && Number.isSafeInteger(tokenId) && tokenId > 0) {
        revoke(tokenId, Math.floor(Date.now() / 1000) + lifetime);
      }
    });
    next.on('error', (err) => {
      logger.warn('token revocations: connection lost, reconnecting', { error: err.message });
      lost(next);
    });
    next.on('end', () => lost(next));
    await next.connect();
    if (pollMs === undefined) await next.query(`LISTEN ${REVOCATION_CHANNEL}`);
    client = next;
    // Listening first, then catching up: a revocation between the two is sent twice, never missed.
    await catchUp(next);
    if (pollMs !== undefined) pollNext(next);
  }

  function lost(which: pg.Client): void {
    if (client !== which) return;
    client = undefined;
    clearTimeout(poll);
    which.end().catch(() => undefined);
    schedule();
  }

  function schedule(): void {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch((err: Error) => {
        logger.warn('token revocations: cannot listen, retrying', { error: err.message });
        schedule();
      });
    }, reconnectMs);
    retry.unref();
  }

  try {
    await connect();
  } catch (err) {
    logger.warn('token revocations: cannot listen, retrying', { error: (err as Error).message });
    schedule();
  }

  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      clearTimeout(poll);
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}
