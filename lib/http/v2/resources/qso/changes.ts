import { Readable, type Transform } from 'node:stream';
import { ApiError, validationError } from '../../../errors.js';
import { parseStationIds, present } from '../../params.js';
import type { Handler, JsonSchema } from '../../resource.js';
import { qsoSchema } from './schemas.js';
import { restrictedOperator } from '../../principal.js';
import type { ChangeCursor, CursorCodec } from '../../../../qso/changeCursor.js';
import {
  ChangePageFromCopy, changeHorizonBindingPage, changePageStatements, checkCursorAge, CursorExpiredError, nextPosition, pageOutlook,
  type ChangeRequest,
} from '../../../../qso/changeFeed.js';
import { changeBounds, type ChangeBounds } from '../../../../qso/changeBounds.js';
import { copyBoundOut } from '../../../../db/settingParams.js';
import { readPageRows } from '../../../../db/pageRows.js';
import { CopyTextOfRows } from '../../../../qso/pageRows.js';
import { CopyPageEnvelope } from './jsonListStream.js';
import { answerFromSnapshot, beginSnapshot, endSnapshot } from './snapshot.js';

export const DEFAULT_PER_PAGE = 1000;
export const MAX_PER_PAGE = 5000;

function parsePerPage(query: Record<string, string>): number {
  if (!present(query.per_page)) return DEFAULT_PER_PAGE;
  if (!/^\d{1,6}$/.test(query.per_page) || Number(query.per_page) < 1 || Number(query.per_page) > MAX_PER_PAGE) {
    throw validationError(`per_page must be an integer from 1 to ${MAX_PER_PAGE}`, { field: 'per_page' });
  }
  return Number(query.per_page);
}

/** `omit_empty`: true/1 or false/0 (default false). */
function parseOmitEmpty(query: Record<string, string>): boolean {
  if (query.omit_empty === undefined) return false;
  if (/^(?:true|1)$/i.test(query.omit_empty)) return true;
  if (/^(?:false|0)$/i.test(query.omit_empty)) return false;
  throw validationError('omit_empty must be true or false', { field: 'omit_empty' });
}

/**
 * The client's cursor: 400 when it is not one this instance signed for this owner (forged,
 * altered, another user's); 410 for an unsigned one of an older version, which cannot be
 * trusted to have seen every deletion: the client starts over as after any expiry.
 */
function parseCursor(query: Record<string, string>, codec: CursorCodec, ownerId: number): ChangeCursor | null {
  if (query.cursor === undefined) return null;
  const decoded = codec.decode(query.cursor, ownerId);
  if (decoded === null) throw validationError('cursor is not a cursor this feed gave out; start without one for a full copy', { field: 'cursor' });
  if ('unsigned' in decoded) throw new ApiError(410, 'cursor_expired', 'the cursor was issued before cursors were signed: start again without a cursor for a full copy');
  return decoded.cursor;
}

/** This request's URL with the cursor of the next page. */
function nextPageUrl(path: string, querystring: string, cursor: string): string {
  const query = new URLSearchParams(querystring);
  query.set('cursor', cursor);
  return `${path}?${query.toString()}`;
}

/** 410 for a cursor that may have missed deletions retention removed. */
function refuseExpired(cursor: ChangeCursor, horizon: bigint, retentionDays: number, now: number): void {
  try {
    checkCursorAge(cursor, horizon, retentionDays, now);
  } catch (error) {
    if (!(error instanceof CursorExpiredError)) throw error;
    throw new ApiError(410, 'cursor_expired', `${error.message}: start again without a cursor for a full copy`);
  }
}

/**
 * GET /qso/changes: the log's changes after `cursor` (docs/change-feed.md). The cut is computed
 * first, on its own; then one snapshot serves the retention horizon, the page's end (the `Link`
 * to the next page) and the page, so that a pruning the page does not see cannot have slipped
 * past the cursor check either, and the link's cursor is the one `meta` ends with. The page is
 * one statement, a COPY whose text rows become the change objects' JSON as they arrive
 * (lib/qso/copyJson.ts): no value of a page becomes a string on its way. A page the outlook
 * finds small (a client polling a log it is up to date with) is read as rows of the same
 * statement, named and so planned once per connection, and handed on as that COPY text.
 */
export const listChanges: Handler = async (request) => {
  const { ctx, query, services, principal } = request;
  const perPage = parsePerPage(query);
  const omitEmpty = parseOmitEmpty(query);
  const codec = await services.changeCursors();
  const cursor = parseCursor(query, codec, principal.userId);
  const stationIds = parseStationIds(principal, query);
  const now = Math.floor(Date.now() / 1000);
  const change: ChangeRequest = {
    scope: { stationIds, operator: restrictedOperator(principal) },
    ownerId: principal.userId,
    filtered: present(query.station_id),
    cursor,
    perPage,
  };
  const client = await services.pageDb.connect();
  try {
    // The cut is computed before the snapshot is taken.
    const bounds: ChangeBounds = stationIds.length > 0 ? await changeBounds(client, stationIds) : { xidBound: cursor?.txid ?? '0', idBound: 0 };
    await beginSnapshot(client);
    // The page's values go with the horizon's read: one round trip.
    const statements = stationIds.length > 0 ? changePageStatements(change, bounds) : null;
    const { horizon, copyText } = await changeHorizonBindingPage(client, principal.userId, statements?.page ?? null);
    if (cursor !== null) refuseExpired(cursor, horizon, services.config.change_retention_days, now);
    const changes = new ChangePageFromCopy(perPage, omitEmpty);
    const cursorAt = (position: Pick<ChangeCursor, 'txid' | 'id' | 'kind'>) => codec.encode({ ...position, horizon: Number(horizon), issuedAt: now }, principal.userId);
    const meta = () => {
      const position = nextPosition(changes.last, changes.hasMore, bounds, cursor);
      return { ...request.meta, cursor: cursorAt(position), has_more: changes.hasMore };
    };
    // A full page with more behind it names the next page before its body: a client copying the
    // log can ask for it while it still reads this one.
    const outlook = statements !== null ? await pageOutlook(client, change, statements.outlook) : null;
    if (outlook?.end) ctx.set('Link', `<${nextPageUrl(ctx.path, ctx.querystring, cursorAt(outlook.end))}>; rel="next"`);
    // A statement that fails still gets the error envelope.
    const [rows, body]: [Readable, Transform] =
      copyText === null ? [Readable.from([]), new CopyPageEnvelope(changes, meta)]
      : outlook?.small ? [await readPageRows(client, copyText), new CopyPageEnvelope(new CopyTextOfRows(changes), meta)]
      : [await copyBoundOut(client, copyText), new CopyPageEnvelope(changes, meta)];
    return answerFromSnapshot(ctx, client, rows, body, services.readAhead);
  } catch (error) {
    // A refused cursor is an answer, not a failure of the connection.
    endSnapshot(client, error instanceof ApiError ? null : (error as Error));
    throw error;
  }
};

export const changesQuerySchema: JsonSchema = {
  type: 'object',
  properties: {
    cursor: { type: 'string', description: 'meta.cursor of the previous answer; absent: from the start of the log (a full copy)' },
    per_page: { type: 'string', description: `Changes per page: default ${DEFAULT_PER_PAGE}, at most ${MAX_PER_PAGE}` },
    station_id: { type: 'string', description: 'Comma-separated station location ids (default: all owned); a foreign id is 403 forbidden' },
    omit_empty: {
      type: 'string',
      description: 'true: each qso object carries only its set fields (a missing field is "" for text, null otherwise, as in the full object); about a third of the bytes for a full copy. Default false',
    },
  },
};

export const changeListSchema: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['change', 'id', 'station_id', 'qso'],
    properties: {
      change: { enum: ['upsert', 'delete'] },
      id: { type: 'integer' },
      station_id: { type: 'integer', description: 'Where the QSO is now (upsert) or was (delete)' },
      qso: { oneOf: [qsoSchema, { type: 'null' }], description: 'As GET /qso/{id} answers it; null for a delete' },
    },
  },
  description: 'meta.cursor: pass it back as cursor; meta.has_more: false once the client is up to date (poll again later). While has_more is true the answer\'s head also carries Link: <this request with the next cursor>; rel="next", so the next page can be asked for before this one is read. 410 cursor_expired: start over.',
};
