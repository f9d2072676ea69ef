import type pg from 'pg';

/**
 * Removes tombstones older than the retention and records, for each owner, the highest of their
 * transactions removed, so that a cursor of theirs behind it which was issued before gets 410
 * instead of silently missing them; another owner's cursors are untouched. Idempotent, safe from
 * several processes at once (owners' rows upserted in one order). Returns the number removed.
 */
export async function pruneChanges(db: Pick<pg.Pool, 'query'>, retentionDays: number): Promise<number> {
  const { rows } = await db.query<{ removed: number }>(
    `WITH gone AS (
       DELETE FROM qso_deletions WHERE deleted_at < now() - make_interval(days => $1) RETURNING user_id, txid
     ), horizon AS (
       INSERT INTO qso_change_owner_horizon AS h (user_id, pruned_through)
       SELECT user_id, max(txid::text::bigint) FROM gone WHERE user_id IS NOT NULL GROUP BY user_id ORDER BY user_id
       ON CONFLICT (user_id) DO UPDATE SET pruned_through = greatest(h.pruned_through, excluded.pruned_through)
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
