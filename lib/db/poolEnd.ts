import type pg from 'pg';

/**
 * How long ending a pool waits for its connections to close: a backend that does not answer the
 * client's Terminate must not hold up a shutdown.
 */
const CLOSE_WAIT_MS = 5000;

/**
 * Resolves once every connection `pool` holds now has closed (its 'remove' event), or after
 * CLOSE_WAIT_MS. Call it before ending the pool: pg-pool's end() resolves as soon as it has asked
 * its clients to end, before their backends have exited, so a database dropped or a server
 * stopped right after could still terminate one, an error on a client no pool listens to any
 * more (test/db/planCache.test.ts failed so about one run in ten).
 */
export function connectionsClosed(pool: pg.Pool): Promise<void> {
  let open = pool.totalCount;
  if (open === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, CLOSE_WAIT_MS);
    timer.unref();
    pool.on('remove', () => {
      if (--open > 0) return;
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Ends a pool once every one of its connections has closed (connectionsClosed). */
export async function endPool(pool: pg.Pool): Promise<void> {
  const closed = connectionsClosed(pool);
  await pool.end();
  await closed;
}
