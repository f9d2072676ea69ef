import type { Handler, RequestContext } from '../../resource.js';
import { QsoPageFromCopy } from '../../../../qso/copyJson.js';
import { QsoPageFromRows, readQsoPage } from '../../../../qso/pageRows.js';
import { copyBoundOut } from '../../../../db/settingParams.js';
import { listMeta, pageSql, parseListQuery, type ListQuery } from './listQuery.js';
import { CopyPageEnvelope } from './jsonListStream.js';
import { adifListPage } from './adifList.js';
import { pageSeek } from './deepPage.js';
import { answerListPage, type ListPage } from './listPage.js';

/**
 * Pages of at most this many QSOs are read as rows of a named statement, planned once per
 * connection (readQsoPage: it has no flow control, so a page must be small); longer ones by COPY.
 */
const ROWS_PAGE_MAX = 100;

/**
 * JSON list: a page whose rows become the QSO objects' JSON as they arrive, straight into the
 * response body: a small page's rows from a named statement (QsoPageFromRows), a longer page's
 * COPY text (QsoPageFromCopy); a deep page starts from its month.
 */
function jsonListPage(request: RequestContext, list: ListQuery): ListPage {
  const byRows = list.pagination.perPage <= ROWS_PAGE_MAX;
  return {
    query: async (client) => pageSql(list, undefined, await pageSeek(client, list)),
    read: (client, boundText) => (byRows ? readQsoPage(client, boundText) : copyBoundOut(client, boundText)),
    envelope(total) {
      const metaOf = (qsos: { count: number }) => () => ({ ...request.meta, ...listMeta(list, qsos.count, total) });
      if (!byRows) {
        const qsos = new QsoPageFromCopy();
        return new CopyPageEnvelope(qsos, metaOf(qsos));
      }
      const qsos = new QsoPageFromRows();
      return new CopyPageEnvelope(qsos, metaOf(qsos), true);
    },
  };
}

/** GET /qso: the filtered QSOs, a page of JSON objects or an ADIF export batch. */
export const listQsos: Handler = (request) => {
  const parsed = parseListQuery(request);
  return answerListPage(request, parsed, (list) => (list.format === 'adif' ? adifListPage(request, list) : jsonListPage(request, list)));
};
