import type pg from 'pg';
import { SqlParams } from '../db/sqlParams.js';
import type { RadioColumn, RadioValues } from './radioInput.js';
import { shapedStatement } from '../db/shapedStatement.js';

/**
 * Radio (CAT) state, one row per owner and radio name. Shared by the v2 radio resource and the
 * v1 `api/radio` call, so both store and show a radio the same way.
 */

/** The radio object both APIs show and publish. Frequencies in Hz; no mode is null. */
export interface RadioStatus {
  id: number;
  radio: string;
  frequency: number | null;
  frequency_rx: number | null;
  mode: string | null;
  mode_rx: string | null;
  power: number | null;
  prop_mode: string | null;
  sat_name: string | null;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  updated_at: string;
}

/** Who writes: the owner (the club for club tokens and keys) and the member at the radio. */
export interface RadioWriter {
  userId: number;
  operatorId: number;
}

/** Which radios a request sees: the owner's, or (club members below officer) one operator's. */
export interface RadioVisibility {
  userId: number;
  operatorId: number | null;
}

interface RadioRow extends RadioStatus {
  updated_ms: number;
}

const SELECT_COLUMNS = `id, radio, frequency, frequency_rx, mode, mode_rx, power, prop_mode, sat_name,
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS updated_at,
  (extract(epoch FROM updated_at) * 1000)::bigint AS updated_ms`;

/** Rows written before modes were normalised may still hold "" or "non". */
function modeOrNull(mode: string | null): string | null {
  return mode === null || mode === '' || mode.toUpperCase() === 'NON' ? null : mode;
}

function toStatus(row: RadioRow): RadioStatus {
  return {
    id: row.id,
    radio: row.radio,
    frequency: row.frequency,
    frequency_rx: row.frequency_rx,
    mode: modeOrNull(row.mode),
    mode_rx: modeOrNull(row.mode_rx),
    power: row.power,
    prop_mode: row.prop_mode || null,
    sat_name: row.sat_name || null,
    updated_at: row.updated_at,
  };
}

function visibilityConditions(visibility: RadioVisibility, params: SqlParams): string {
  const conditions = [`user_id = ${params.add(visibility.userId)}`];
  if (visibility.operatorId !== null) conditions.push(`operator_id = ${params.add(visibility.operatorId)}`);
  return conditions.join(' AND ');
}

export interface RadioWrite {
  status: RadioStatus;
  created: boolean;
  /** updated_at in epoch milliseconds, the `timestamp` of live updates. */
  updatedMs: number;
}

/**
 * Creates the radio or updates the columns in `values` (others keep their value), stamping the
 * server time. The radio passes to the writing member: a club's rig belongs to whoever reports it.
 */
export async function upsertRadio(db: pg.Pool, writer: RadioWriter, radio: string, values: RadioValues): Promise<RadioWrite> {
  const params = new SqlParams();
  const columns = Object.keys(values) as RadioColumn[];
  const inserted = [params.add(writer.userId), params.add(writer.operatorId), params.add(radio), ...columns.map((c) => params.add(values[c]))];
  const updates = ['operator_id = EXCLUDED.operator_id', ...columns.map((c) => `${c} = EXCLUDED.${c}`), 'updated_at = now()'];
  // A rig reports every second or so: named by its shape (the columns it sets), the statement is
  // parsed once per connection instead of at every report.
  const { rows } = await db.query<RadioRow & { created: boolean }>(shapedStatement(db,
    `INSERT INTO radios (user_id, operator_id, radio${columns.map((c) => `, ${c}`).join('')})
     VALUES (${inserted.join(', ')})
     ON CONFLICT (user_id, radio) DO UPDATE SET ${updates.join(', ')}
     RETURNING ${SELECT_COLUMNS}, (xmax = 0) AS created`,
    params.values,
  ));
  const row = rows[0]!;
  return { status: toStatus(row), created: row.created, updatedMs: row.updated_ms };
}

export async function listRadios(db: pg.Pool, visibility: RadioVisibility): Promise<RadioStatus[]> {
  const params = new SqlParams();
  const { rows } = await db.query<RadioRow>(
    `SELECT ${SELECT_COLUMNS} FROM radios WHERE ${visibilityConditions(visibility, params)} ORDER BY radio, id`,
    params.values,
  );
  return rows.map(toStatus);
}

export async function findRadio(db: pg.Pool, visibility: RadioVisibility, id: number): Promise<RadioStatus | null> {
  const params = new SqlParams();
  const { rows } = await db.query<RadioRow>(
    `SELECT ${SELECT_COLUMNS} FROM radios WHERE id = ${params.add(id)} AND ${visibilityConditions(visibility, params)}`,
    params.values,
  );
  return rows[0] ? toStatus(rows[0]) : null;
}

export async function deleteRadio(db: pg.Pool, visibility: RadioVisibility, id: number): Promise<boolean> {
  const params = new SqlParams();
  const { rowCount } = await db.query(
    `DELETE FROM radios WHERE id = ${params.add(id)} AND ${visibilityConditions(visibility, params)}`,
    params.values,
  );
  return (rowCount ?? 0) > 0;
}
