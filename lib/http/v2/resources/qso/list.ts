import type { Handler, RequestContext } from '../../resource.js';
import { QsoPageFromCopy } from '../../../../qso/copyJson.js';
import { listMeta, pageSql, parseListQuery, type ListQuery } from './listQuery.js';
import { CopyPageEnvelope } from './jsonListStream.js';
import { adifList } from './adifList.js';
import { pageSeek } from './deepPage.js';
import { answerListPage } from './listPage.js';

/**
 * JSON list: a page whose COPY text rows become the QSO objects' JSON as they arrive
 * (QsoPageFromCopy), straight into the response body; a deep page starts from its month.
 */
function jsonList(request: RequestContext, list: ListQuery): Promise<undefined> {
  return answerListPage(request, list, {
    query: async (client) => pageSql(list, undefined, await pageSeek(client, list)),
    nullAsEmpty: false,
    envelope(total) {
      const qsos = new QsoPageFromCopy();
      return new CopyPageEnvelope(qsos, () => ({ ...request.meta, ...listMeta(list, qsos.count, total) }));
    },
  });
}

/** GET /qso: the filtered QSOs, a page of JSON objects or an ADIF export batch. */
export const listQsos: Handler = async (request) => {
  const list = await parseListQuery(request);
  return list.format === 'adif' ? adifList(request, list) : jsonList(request, list);
};
