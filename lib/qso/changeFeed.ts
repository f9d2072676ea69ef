import type pg from 'pg';
import { SqlParams } from '../db/sqlParams.js';
import type { ChangeBounds } from './changeBounds.js';
import { START, type ChangeCursor } from './changeCursor.js';
import { qsoSelectList, renderQsoJson, renderSetQsoJson } from './present.js';
import type { QsoScope } from './scope.js';

/**
 * The change feed of a log (docs/change-feed.md): every QSO created, changed or deleted, in the
 * order of the transactions that did it, cut below any transaction of the log's owner that is
 * still running. A page is one statement, so one snapshot, taken after the cut was computed.
 */

export interface ChangeRequest {
  /** The locations read (the owner's, or the station_id filter) and the operator restriction. */
  scope: QsoScope;
  /** Whose tombstones: those of deleted locations too when the client reads the whole log. */
  ownerId: number;
  /** A station_id filter was given: tombstones of those locations only. */
  filtered: boolean;
  cursor: ChangeCursor | null;
  perPage: number;
}

/**
 * A row of a page, read in array mode: where it stands in the feed (kind 0 a deletion, 1 a row),
 * then the QSO's columns (qsoSelectList; null for a deletion).
 */
export type ChangeRow = [kind: 0 | 1, txid: string, id: number, stationId: number, ...qso: unknown[]];

export class CursorExpiredError extends Error {}

/** How far retention has removed tombstones (a transaction id, 0 when never). */
export async function changeHorizon(db: Pick<pg.Pool, 'query'>): Promise<bigint> {
  const { rows } = await db.query<{ pruned_through: string }>('SELECT pruned_through::text FROM qso_change_horizon');
  return BigInt(rows[0]?.pruned_through ?? '0');
}

/**
 * Refuses a cursor that may have missed deletions: older than the retention, or behind
 * tombstones that retention removed since it was issued.
 */
export function checkCursorAge(cursor: ChangeCursor, horizon: bigint, retentionDays: number, nowSeconds: number): void {
  if (cursor.issuedAt < nowSeconds - retentionDays * 86_400) {
    throw new CursorExpiredError(`the cursor is older than the ${retentionDays} days deletions are kept`);
  }
  if (horizon > BigInt(cursor.horizon) && BigInt(cursor.txid) <= horizon) {
    throw new CursorExpiredError('deletions after this cursor are no longer kept');
  }
}

/**
 * The page's changes in feed order, keys only (kind, txid, id, station_id), each branch limited to
 * perPage + 1: the page statement joins the QSOs to it, the page-end look reads it alone.
 */
function changeKeys(request: ChangeRequest, bounds: ChangeBounds, params: SqlParams): { keys: string; limit: string } {
  const at = request.cursor ?? START;
  const txid = params.add(at.txid);
  const id = params.add(at.id);
  const below = params.add(bounds.xidBound);
  const limit = params.add(request.perPage + 1);
  const stations = params.add(request.scope.stationIds);
  const operator = request.scope.operator === null ? null : params.add(request.scope.operator);
  const byOperator = (alias: string) => (operator === null ? '' : ` AND ${alias}.operator = ${operator}`);
  // A deletion sorts before the row of the same QSO in the same transaction (moved elsewhere
  // and back): after a cursor on a deletion, that row is still to come.
  const rowAfter = at.kind === 0 ? '>=' : '>';
  const upserts = `SELECT 1 AS kind, c.txid, c.id, c.station_id FROM unnest(${stations}::int[]) s(id)
    CROSS JOIN LATERAL (SELECT q.txid, q.id, q.station_id FROM qso q
      WHERE q.station_id = s.id${byOperator('q')} AND q.txid < ${below}::xid8 AND (q.txid, q.id) ${rowAfter} (${txid}::xid8, ${id}::bigint)
      ORDER BY q.txid, q.id LIMIT ${limit}) c`;
  // A tombstone of a QSO that is (again) in the scope is no deletion for this client: its row
  // comes at or after the tombstone's place.
  const deletes = `SELECT 0 AS kind, d.txid, d.qso_id AS id, d.station_id FROM qso_deletions d
    WHERE d.user_id = ${params.add(request.ownerId)}${request.filtered ? ` AND d.station_id = ANY(${stations}::int[])` : ''}${byOperator('d')}
      AND d.txid < ${below}::xid8 AND (d.txid, d.qso_id) > (${txid}::xid8, ${id}::bigint)
      AND NOT EXISTS (SELECT 1 FROM qso q WHERE q.id = d.qso_id AND q.station_id = ANY(${stations}::int[])${byOperator('q')})
    ORDER BY d.txid, d.qso_id LIMIT ${limit}`;
  return { keys: `(${upserts}) UNION ALL (${deletes})`, limit };
}

/** The page's statement: perPage + 1 rows, the last only telling that there is more. */
export function changePageSql(request: ChangeRequest, bounds: ChangeBounds): { text: string; values: unknown[] } {
  const params = new SqlParams();
  const { keys, limit } = changeKeys(request, bounds, params);
  return {
    text: `SELECT c.kind, c.txid::text, c.id, c.station_id, ${qsoSelectList('q')}
             FROM (${keys}) c LEFT JOIN qso q ON c.kind = 1 AND q.id = c.id
            ORDER BY c.txid, c.id, c.kind LIMIT ${limit}`,
    values: params.values,
  };
}

/**
 * Where a full page ends, read before the page itself in the same snapshot (so it is the page's
 * own end): the position of its last change when a change follows it, else null (the page is the
 * last one for now). Index entries only, no QSO rows.
 */
export async function fullPageEnd(
  client: Pick<pg.ClientBase, 'query'>,
  request: ChangeRequest,
  bounds: ChangeBounds,
): Promise<Pick<ChangeCursor, 'txid' | 'id' | 'kind'> | null> {
  const params = new SqlParams();
  const { keys } = changeKeys(request, bounds, params);
  const { rows } = await client.query<{ kind: 0 | 1; txid: string; id: string | number }>(
    `SELECT c.kind, c.txid::text, c.id FROM (${keys}) c ORDER BY c.txid, c.id, c.kind OFFSET ${params.add(request.perPage - 1)} LIMIT 2`,
    params.values,
  );
  return rows.length === 2 ? { txid: rows[0]!.txid, id: Number(rows[0]!.id), kind: rows[0]!.kind } : null;
}

/** The change object of a row, as JSON text: `{change, id, station_id, qso}`; `omitEmpty`: the QSO's set fields only. */
export function changeJson(row: ChangeRow, omitEmpty = false): string {
  const [kind, , id, stationId] = row;
  const qso = kind === 1 ? (omitEmpty ? renderSetQsoJson(row, 4) : renderQsoJson(row, 4)) : 'null';
  return `{"change":"${kind === 1 ? 'upsert' : 'delete'}","id":${id},"station_id":${stationId},"qso":${qso}}`;
}

/** Where the client stands after a page: its last change, or, when nothing more is there, the cut itself. */
export function nextPosition(last: ChangeRow | null, hasMore: boolean, bounds: ChangeBounds, previous: ChangeCursor | null): Pick<ChangeCursor, 'txid' | 'id' | 'kind'> {
  // The cut never moves back for a log (its writers below it have ended), but a cursor is
  // never moved back whatever happens.
  if (!hasMore && (previous === null || BigInt(previous.txid) < BigInt(bounds.xidBound))) return { txid: bounds.xidBound, id: 0, kind: 0 };
  if (last !== null) return { txid: last[1], id: last[2], kind: last[0] };
  return previous ?? START;
}
