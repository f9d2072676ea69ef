import type pg from 'pg';
import { SqlParams } from '../db/sqlParams.js';
import { bindForCopy, readingSettings, type Statement } from '../db/settingParams.js';
import { shapedStatement } from '../db/shapedStatement.js';
import type { ChangeBounds } from './changeBounds.js';
import { START, type ChangeCursor } from './changeCursor.js';
import { ByteOutput } from '../export/byteOutput.js';
import { put, qsoJsonWriter, reserveForObjects, type QsoJsonFromCopy, type CopyPage } from './copyJson.js';
import { CopyRows } from '../db/copyRows.js';
import { ROWS_PAGE_MAX } from '../db/pageRows.js';
import { qsoSelectList } from './present.js';
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

export class CursorExpiredError extends Error {}

/**
 * How far retention has removed the owner's tombstones (a transaction id, 0 when never), read in
 * the same round trip as the page's COPY values are bound (bindForCopy; `page` null: no page to
 * read). `copyText` is the page's statement for copyBoundOut, null without a page.
 */
export async function changeHorizonBindingPage(
  client: Pick<pg.ClientBase, 'query'>, ownerId: number, page: Statement | null,
): Promise<{ horizon: bigint; copyText: string | null }> {
  const horizon = {
    text: `SELECT coalesce((SELECT pruned_through::text FROM qso_change_owner_horizon WHERE user_id = $1), '0') AS pruned_through`,
    values: [ownerId],
  };
  if (page === null) {
    const { rows } = await client.query<{ pruned_through: string }>(horizon.text, horizon.values);
    return { horizon: BigInt(rows[0]!.pruned_through), copyText: null };
  }
  const { copyText, row } = await bindForCopy<{ pruned_through: string }>(client, page, horizon);
  return { horizon: BigInt(row!.pruned_through), copyText };
}

/**
 * Refuses a cursor that may have missed deletions: older than the retention, or behind the
 * owner's tombstones that retention removed since it was issued.
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
  const limit = `${params.add(request.perPage + 1)}::bigint`;
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
    WHERE d.user_id = ${params.add(request.ownerId)}::int${request.filtered ? ` AND d.station_id = ANY(${stations}::int[])` : ''}${byOperator('d')}
      AND d.txid < ${below}::xid8 AND (d.txid, d.qso_id) > (${txid}::xid8, ${id}::bigint)
      AND NOT EXISTS (SELECT 1 FROM qso q WHERE q.id = d.qso_id AND q.station_id = ANY(${stations}::int[])${byOperator('q')})
    ORDER BY d.txid, d.qso_id LIMIT ${limit}`;
  return { keys: `(${upserts}) UNION ALL (${deletes})`, limit };
}

/**
 * The page's statement (perPage + 1 rows, the last only telling that there is more) and the
 * statement of its outlook (pageOutlook), which uses the page's parameters and one of its own:
 * once bindForCopy has bound the page's values, `readingSettings` makes either read them all.
 */
export function changePageStatements(request: ChangeRequest, bounds: ChangeBounds): { page: Statement; outlook: string } {
  const params = new SqlParams();
  const { keys, limit } = changeKeys(request, bounds, params);
  const page = `SELECT c.kind, c.txid::text, c.id, c.station_id, ${qsoSelectList('q')}
                  FROM (${keys}) c LEFT JOIN qso q ON c.kind = 1 AND q.id = c.id
                 ORDER BY c.txid, c.id, c.kind LIMIT ${limit}`;
  // The changes at the end of a full page, in order, then how many changes there are up to one
  // more than ROWS_PAGE_MAX.
  const outlook = `SELECT o.kind, o.txid::text, o.id, o.ahead FROM (
      (SELECT 0 AS part, c.kind, c.txid, c.id, NULL::int AS ahead FROM (${keys}) c
        ORDER BY c.txid, c.id, c.kind OFFSET ${params.add(request.perPage - 1)}::bigint LIMIT 2)
      UNION ALL
      SELECT 1, NULL, NULL, NULL, (SELECT count(*)::int FROM (SELECT FROM (${keys}) c LIMIT ${ROWS_PAGE_MAX + 1}) ahead)
    ) o ORDER BY o.part, o.txid, o.id, o.kind`;
  return { page: { text: page, values: params.values }, outlook };
}

/** What the page holds, known before it is read. */
export interface PageOutlook {
  /** The position of a full page's last change when a change follows it, else null (the page is the last one for now). */
  end: ChangePosition | null;
  /** At most ROWS_PAGE_MAX changes: read as rows rather than by COPY. */
  small: boolean;
}

/**
 * The page's outlook, read before the page itself in the same snapshot (so it is the page's own):
 * index entries only, no QSO rows. `outlook` reads its values from the settings bindForCopy set:
 * a named statement without parameters, planned once per connection (planned at every poll, where
 * a full page ends took four fifths of its 0.6 ms of the database's CPU; its plan, the same index
 * walks whatever the cursor, suits any values).
 */
export async function pageOutlook(client: Pick<pg.ClientBase, 'query'>, request: ChangeRequest, outlook: string): Promise<PageOutlook> {
  const { rows } = await client.query<{ kind: 0 | 1; txid: string; id: string | number; ahead: number | null }>(
    shapedStatement(client, readingSettings(outlook), []),
  );
  const ahead = rows.at(-1)!.ahead!;
  const end = rows.length === 3 ? { txid: rows[0]!.txid, id: Number(rows[0]!.id), kind: rows[0]!.kind } : null;
  return { end, small: request.perPage <= ROWS_PAGE_MAX || ahead <= ROWS_PAGE_MAX };
}

/** A change's place in the feed, as a cursor holds it. */
export type ChangePosition = Pick<ChangeCursor, 'txid' | 'id' | 'kind'>;

const TAB = 0x09;
const DIGIT_ZERO = 0x30;
const CHANGE_PREFIX = [Buffer.from('{"change":"delete","id":'), Buffer.from('{"change":"upsert","id":')] as const;
const STATION_KEY = Buffer.from(',"station_id":');
const QSO_KEY = Buffer.from(',"qso":');
const NO_QSO = Buffer.from('null}');

/**
 * The page's COPY output (changePageSql's columns: kind, txid, id, station_id, the QSO's), in
 * pieces as the connection delivers them, turned into the change objects' JSON text, separated
 * by commas: the row after `perPage` only says there is more, a QSO deleted twice in the page
 * (moved away, then deleted) is told once, and `last` is where the last row read stands.
 */
export class ChangePageFromCopy implements CopyPage {
  readonly objectChunks = false;
  last: ChangePosition | null = null;
  hasMore = false;
  private count = 0;
  private readonly deleted = new Set<number>();
  private readonly qso: QsoJsonFromCopy;
  private readonly out = new ByteOutput();
  private readonly rows = new CopyRows((input, start, end) => {
    if (this.count === this.perPage) {
      this.hasMore = true;
      return;
    }
    this.count++;
    this.writeChange(input, start, end);
  });

  /** `omitEmpty`: each QSO with its set fields only. */
  constructor(private readonly perPage: number, omitEmpty: boolean) {
    this.qso = qsoJsonWriter(omitEmpty);
  }

  read(chunk: Buffer): Buffer | null {
    reserveForObjects(this.out, chunk);
    this.rows.write(chunk);
    return this.out.length > 0 ? this.out.take() : null;
  }

  end(): void {
    this.rows.end();
  }

  private writeChange(input: Buffer, start: number, end: number): void {
    const kind = input[start] === DIGIT_ZERO ? 0 : 1;
    const txidEnd = input.indexOf(TAB, start + 2);
    const idEnd = input.indexOf(TAB, txidEnd + 1);
    const stationEnd = input.indexOf(TAB, idEnd + 1);
    let id = 0;
    for (let at = txidEnd + 1; at < idEnd; at++) id = id * 10 + input[at]! - DIGIT_ZERO;
    this.last = { kind, txid: input.toString('latin1', start + 2, txidEnd), id };
    if (kind === 0) {
      if (this.deleted.has(id)) return;
      this.deleted.add(id);
    }
    const out = this.out;
    out.reserve(80 + stationEnd - start);
    const bytes = out.bytes;
    let at = out.length;
    if (this.count > 1) bytes[at++] = 0x2c /* , */;
    at = put(CHANGE_PREFIX[kind], bytes, at);
    at = put(input, bytes, at, txidEnd + 1, idEnd);
    at = put(STATION_KEY, bytes, at);
    at = put(input, bytes, at, idEnd + 1, stationEnd);
    at = put(QSO_KEY, bytes, at);
    if (kind === 0) {
      out.length = put(NO_QSO, bytes, at);
      return;
    }
    out.length = at;
    this.qso.write(input, stationEnd + 1, end, out);
    out.reserve(1);
    out.bytes[out.length++] = 0x7d /* } */;
  }
}

/** Where the client stands after a page: its last change, or, when nothing more is there, the cut itself. */
export function nextPosition(last: ChangePosition | null, hasMore: boolean, bounds: ChangeBounds, previous: ChangeCursor | null): ChangePosition {
  // The cut never moves back for a log (its writers below it have ended), but a cursor is
  // never moved back whatever happens.
  if (!hasMore && (previous === null || BigInt(previous.txid) < BigInt(bounds.xidBound))) return { txid: bounds.xidBound, id: 0, kind: 0 };
  if (last !== null) return last;
  return previous ?? START;
}
