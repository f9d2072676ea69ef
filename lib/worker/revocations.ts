/**
 * API tokens revoked while browser tokens minted from them may still be valid. A browser token
 * carries the id of the API token it was minted from (claim `token_id`); the worker refuses such
 * a token on a new socket and closes the sockets already open with it. An entry is kept until
 * `until` (unix seconds), the last second a browser token minted before the revocation can be
 * valid, and then forgotten, so the list holds at most one token lifetime of revocations.
 */

/** A revocation claiming a longer life is cut to this: no browser token lives longer. */
export const MAX_REVOCATION_SECONDS = 7 * 86_400;

export interface RevocationList {
  /** Returns false when the revocation was already known (nothing new to do). */
  add(tokenId: number, until: number, now?: number): boolean;
  has(tokenId: number, now?: number): boolean;
  size(): number;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

export function createRevocationList(): RevocationList {
  const until = new Map<number, number>();
  let prunedAt = 0;

  function prune(now: number): void {
    if (now === prunedAt) return;
    prunedAt = now;
    for (const [tokenId, last] of until) if (last < now) until.delete(tokenId);
  }

  return {
    add(tokenId, last, now = nowSeconds()) {
      prune(now);
      const capped = Math.min(last, now + MAX_REVOCATION_SECONDS);
      const known = until.get(tokenId);
      if (known !== undefined && known >= capped) return false;
      until.set(tokenId, capped);
      return true;
    },
    has(tokenId, now = nowSeconds()) {
      prune(now);
      const last = until.get(tokenId);
      return last !== undefined && last >= now;
    },
    size: () => until.size,
  };
}

/** Valid ids of API tokens: positive safe integers. */
export function isTokenId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
