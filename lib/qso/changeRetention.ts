import type pg from 'pg';

/**
 * Removes tombstones older than the retention and records the highest transaction removed, so
 * that a cursor behind it which was issued before gets 410 instead of silently missing them.
 * Idempotent, safe from several processes at once. Returns the number removed.
 */
export async function pruneChanges(db: Pick<pg.Pool, 'query'>, retentionDays: number): Promise<number> {
  const { rows } = await db.query<{ removed: number }>(
    `WITH gone AS (
       DELETE FROM qso_deletions WHERE deleted_at < now() - make_interval(days => $1) RETURNING txid
     ), horizon AS (
       UPDATE qso_change_horizon SET pruned_through = greatest(pruned_through, (SELECT max(txid::text::bigint) FROM gone))
        WHERE EXISTS (SELECT 1 FROM gone)
     )
     SELECT count(*)::int AS removed FROM gone`,
    [retentionDays],
  );
  return rows[0]!.removed;
}

const HOUR_MS = 3_600_000;

/** Prunes now and then every hour until stopped (the returned function waits for a run in progress); failures go to onError. */
export function scheduleChangePruning(db: pg.Pool, retentionDays: number, onError: (error: Error) => void): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = pruneChanges(db, retentionDays).catch(onError);
  };
  run();
  const timer = setInterval(run, HOUR_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
