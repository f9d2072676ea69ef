import { Readable } from 'node:stream';
import type { Handler, RequestContext } from '../../resource.js';
import { copyOut } from '../../../../db/settingParams.js';
import { QsoPageFromCopy } from '../../../../qso/copyJson.js';
import { listMeta, pageSql, parseListQuery, type ListQuery } from './listQuery.js';
import { CopyPageEnvelope } from './jsonListStream.js';
import { adifList } from './adifList.js';
import { answerFromSnapshot, beginSnapshot, endSnapshot } from './snapshot.js';
import { countTotal } from './listTotal.js';
import { pageSeek } from './deepPage.js';

/**
 * JSON list: the count first, then the page, a COPY in the same snapshot whose text rows become
 * the QSO objects' JSON as they arrive (QsoPageFromCopy), straight into the response body; the
 * snapshot ends when the COPY is drained, or is discarded with its connection when the client
 * goes away (or the database fails) mid-page.
 */
async function streamJsonList(request: RequestContext, list: ListQuery): Promise<undefined> {
  const { ctx, services } = request;
  const client = await services.bulkDb.connect();
  try {
    await beginSnapshot(client);
    const total = await countTotal(client, list);
    let rows: Readable = Readable.from([]);
    if (total > list.pagination.offset) {
      const page = pageSql(list, undefined, await pageSeek(client, list));
      // A query that fails still gets the error envelope instead of a cut-off body.
      rows = await copyOut(client, page.text, page.values);
    }
    const qsos = new QsoPageFromCopy();
    const body = new CopyPageEnvelope(qsos, () => ({ ...request.meta, ...listMeta(list, qsos.count, total) }));
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
