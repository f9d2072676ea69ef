import type pg from 'pg';

/** A published logbook as its pushes name it. */
export interface PublishedRef {
  id: number;
  slug: string;
}

/** The published logbooks over any of these station locations (a location may be in several). */
export async function publishedLogbooksOver(db: Pick<pg.Pool, 'query'>, stationIds: number[]): Promise<PublishedRef[]> {
  const { rows } = await db.query<PublishedRef>({
    name: 'public_log_over_stations',
    text: `SELECT DISTINCT l.id, l.slug FROM logbook_stations ls JOIN logbooks l ON l.id = ls.logbook_id
            WHERE ls.station_id = ANY ($1::int[]) AND l.public`,
    values: [stationIds],
  });
  return rows;
}

/** One logbook by id when it is published. */
export async function publishedLogbook(db: Pick<pg.Pool, 'query'>, logbookId: number): Promise<PublishedRef | null> {
  const { rows } = await db.query<PublishedRef>('SELECT id, slug FROM logbooks WHERE id = $1 AND public', [logbookId]);
  return rows[0] ?? null;
}
