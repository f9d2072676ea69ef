import type pg from 'pg';
import { seedQsos } from '../helpers/qsoRows.js';

/**
 * `count` QSOs in one statement: calls SEQ<n>, one minute apart after `start`, 20m SSB, logged
 * by `operator`. Returns the ids ascending, which is also their time order.
 */
export async function seedMany(db: pg.Pool, stationId: number, count: number, start = '2020-01-01 00:00:00', operator: string | null = null): Promise<number[]> {
  const { rows } = await seedQsos(db, [stationId],
    `INSERT INTO qso (station_id, call, time_on, band, mode, operator)
     SELECT $1, 'SEQ' || g, $2::timestamp + g * interval '1 minute', '20m', 'SSB', $4
       FROM generate_series(1, $3) g
     RETURNING id`,
    [stationId, start, count, operator],
  );
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

/** Ids of a list answer's data, in answer order. */
export function idsOf(body: { data: Array<{ id: number }> }): number[] {
  return body.data.map((qso) => qso.id);
}
