import { once } from 'node:events';
import { Readable } from 'node:stream';
import QueryStream from 'pg-query-stream';
import type { Handler, RequestContext } from '../../resource.js';
import { renderQsoJson } from '../../../../qso/present.js';
import { listMeta, pageSql, parseListQuery, type ListQuery } from './listQuery.js';
import { jsonListEnvelope } from './jsonListStream.js';
import { adifList } from './adifList.js';
import { answerFromSnapshot, beginSnapshot, endSnapshot } from './snapshot.js';
import { countTotal } from './listTotal.js';
import { pageSeek } from './deepPage.js';

/** Rows fetched from the cursor per round trip. */
const CURSOR_BATCH = 500;

/**
 * JSON list: the count first, then the page streamed from a cursor straight into the response
 * body; the snapshot ends when the cursor is drained, or is discarded with its connection when
 * the client goes away (or the database fails) mid-page.
 */
async function streamJsonList(request: RequestContext, list: ListQuery): Promise<undefined> {
  const { ctx, services } = request;
  const client = await services.bulkDb.connect();
  try {
    await beginSnapshot(client);
    const total = await countTotal(client, list);
    const page = pageSql(list, undefined, await pageSeek(client, list));
    const rows: Readable = total > list.pagination.offset
      ? client.query(new QueryStream(page.text, page.values, { batchSize: CURSOR_BATCH, rowMode: 'array' }))
      : Readable.from([]);
    // The answer is committed to 200 only once the query has produced its first rows (or none):
    // a query that fails still gets the error envelope instead of a cut-off body.
    await once(rows, 'readable');
    const body = jsonListEnvelope((row: unknown[]) => renderQsoJson(row), (count) => ({ ...request.meta, ...listMeta(list, count, total) }));
    return answerFromSnapshot(ctx, client, rows, body);
  } catch (error) {
    endSnapshot(client, error as Error);
    throw error;
  }
}

/** GET /qso: the filtered QSOs, a page of JSON objects or an ADIF export batch. */
export const listQsos: Handler = async (request) => {
  const list = await parseListQuery(request);
  return list.format === 'adif' ? adifList(request, list) : streamJsonList(request, list);
};
