/**
 * Sockets filed by the second their browser token expires, so that a periodic sweep finds the
 * expired ones without a timer per socket and without looking at every socket: a sweep costs
 * one step per distinct expiry second still ahead (at most the token lifetime in seconds, 3600
 * by default) plus one per socket it takes out.
 */
export interface ExpiryIndex<T> {
  /** Files `item` under `expires` (unix seconds; the item is valid during that second). */
  add(item: T, expires: number): void;
  /** Forgets `item`; nothing happens when it is not filed there. */
  remove(item: T, expires: number): void;
  /** Takes out and returns every item whose expiry second is before `now`. */
  takeExpired(now: number): T[];
  size(): number;
}

export function createExpiryIndex<T>(): ExpiryIndex<T> {
  const bySecond = new Map<number, Set<T>>();
  let size = 0;

  return {
    add(item, expires) {
      let bucket = bySecond.get(expires);
      if (!bucket) bySecond.set(expires, (bucket = new Set()));
      if (bucket.has(item)) return;
      bucket.add(item);
      size++;
    },
    remove(item, expires) {
      const bucket = bySecond.get(expires);
      if (!bucket?.delete(item)) return;
      size--;
      if (bucket.size === 0) bySecond.delete(expires);
    },
    takeExpired(now) {
      const expired: T[] = [];
      for (const [second, bucket] of bySecond) {
        if (second >= now) continue;
        bySecond.delete(second);
        size -= bucket.size;
        expired.push(...bucket);
      }
      return expired;
    },
    size: () => size,
  };
}
