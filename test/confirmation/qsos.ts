import type pg from 'pg';

/** A QSO row for tests: the required columns plus any other column of the qso table by name. */
export interface QsoRow {
  station_id: number;
  call: string;
  time_on: string;
  [column: string]: unknown;
}

/** Inserts QSOs directly (column names come from the test, values are bound); returns their ids. */
export async function insertQsos(db: pg.Pool, rows: QsoRow[]): Promise<number[]> {
  const ids: number[] = [];
  for (const row of rows) {
    const columns = Object.keys(row);
    const placeholders = columns.map((_, i) => `$${i + 1}`);
    const { rows: inserted } = await db.query<{ id: number }>(
      `INSERT INTO qso (${columns.join(', ')}) VALUES (${placeholders.join(', ')}) RETURNING id`,
      Object.values(row),
    );
    ids.push(inserted[0]!.id);
  }
  return ids;
}
