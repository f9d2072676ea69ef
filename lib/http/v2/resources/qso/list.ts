import type { Handler, RequestContext } from '../../resource.js';
import { QsoPageFromCopy } from '../../../../qso/copyJson.js';
import { listMeta, pageSql, parseListQuery, type ListQuery } from './listQuery.js';
import { CopyPageEnvelope } from './jsonListStream.js';
import { adifListPage } from './adifList.js';
import { pageSeek } from './deepPage.js';
import { answerListPage, type ListPage } from './listPage.js';

/**
 * JSON list: a page whose COPY text rows become the QSO objects' JSON as they arrive
 * (QsoPageFromCopy), straight into the response body; a deep page starts from its month.
 */
function jsonListPage(request: RequestContext, list: ListQuery): ListPage {
  return {
    query: async (client) => pageSql(list, undefined, await pageSeek(client, list)),
    nullAsEmpty: false,
    envelope(total) {
      const qsos = new QsoPageFromCopy();
      return new CopyPageEnvelope(qsos, () => ({ ...request.meta, ...listMeta(list, qsos.count, total) }));
    },
  };
}

/** GET /qso: the filtered QSOs, a page of JSON objects or an ADIF export batch. */
export const listQsos: Handler = (request) => {
  const parsed = parseListQuery(request);
  return answerListPage(request, parsed, (list) => (list.format === 'adif' ? adifListPage(request, list) : jsonListPage(request, list)));
};
