import type pg from 'pg';
import { inStationQsoTransaction } from '../../lib/qso/writeLock.js';

/** A QSO row for test setup: column name → value (columns of sql/001's qso table). */
export type QsoRow = { station_id: number; call: string; time_on: string } & Record<string, string | number | null>;

/**
 * Inserts QSOs straight into the table (tests of reading resources need exact rows, not the
 * import pipeline's normalisation) and returns their ids in order. Defaults: band 20m, mode SSB.
 */
export async function insertQsos(db: pg.Pool, rows: QsoRow[]): Promise<number[]> {
  return inStationQsoTransaction(db, [...new Set(rows.map((row) => row.station_id))], async (client) => {
    const ids: number[] = [];
    for (const row of rows) {
      const record: Record<string, unknown> = { band: '20m', mode: 'SSB', ...row };
      const columns = Object.keys(record);
      const { rows: inserted } = await client.query<{ id: number }>(
        `INSERT INTO qso (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
        Object.values(record),
      );
      ids.push(inserted[0]!.id);
    }
    return ids;
  });
}

/** Runs seeding SQL as a QSO writer of these locations' owners (the database refuses QSO writes otherwise). */
export function seedQsos<R extends pg.QueryResultRow = { id: number }>(db: pg.Pool, stationIds: number[], sql: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
  return inStationQsoTransaction(db, stationIds, (client) => client.query<R>(sql, values));
}

/**
 * `count` QSOs with long values in one location: 5,000 make a list page of several MB, more than
 * the sockets between the database and a client that stopped reading hold.
 */
export function seedLongQsos(db: pg.Pool, stationId: number, count: number): Promise<pg.QueryResult> {
  return seedQsos(db, [stationId],
    `INSERT INTO qso (station_id, call, time_on, band, mode, name, qth, comment, notes)
     SELECT $1, 'W' || n || 'AA', timestamp '2020-01-01' + n * interval '1 minute', '20m', 'CW',
            repeat('n', 100), repeat('q', 100), repeat('c', 200), repeat('x', 300)
       FROM generate_series(1, $2::int) n`, [stationId, count]);
}

/** `YYYY-MM-DD HH:MM:SS` (UTC) of a Date, the form of the qso table's timestamps. */
export function utc(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}
