import type { Handler, RequestContext } from '../../resource.js';
import { QsoPageFromCopy } from '../../../../qso/copyJson.js';
import { QsoPageFromRows } from '../../../../qso/pageRows.js';
import { readPageRows } from '../../../../db/pageRows.js';
import { copyBoundOut } from '../../../../db/settingParams.js';
import type { ListQuery } from '../../../../qso/list/query.js';
import { listMeta, parseListQuery } from './listParams.js';
import { CopyPageEnvelope } from './jsonListStream.js';
import { adifListPage } from './adifList.js';
import { pageStatement } from '../../../../qso/list/seek.js';
import { answerListPage, type ListPage } from './listPage.js';

/**
 * JSON list: a page whose rows become the QSO objects' JSON as they arrive, straight into the
 * response body: a small page's rows from a named statement (the plan's 'kept-rows', QsoPageFromRows), the
 * others' COPY text (QsoPageFromCopy); a deep page starts from its month.
 */
function jsonListPage(request: RequestContext, list: ListQuery): ListPage {
  const byRows = list.plan.read === 'kept-rows';
  return {
    query: (client) => pageStatement(client, list),
    read: (client, boundText) => (byRows ? readPageRows(client, boundText) : copyBoundOut(client, boundText)),
    envelope(total) {
      const metaOf = (qsos: { count: number }) => () => ({ ...request.meta, ...listMeta(list, qsos.count, total) });
      if (!byRows) {
        const qsos = new QsoPageFromCopy();
        return new CopyPageEnvelope(qsos, metaOf(qsos));
      }
      const qsos = new QsoPageFromRows();
      return new CopyPageEnvelope(qsos, metaOf(qsos));
    },
  };
}

/** GET /qso: the filtered QSOs, a page of JSON objects or an ADIF export batch. */
export const listQsos: Handler = (request) => {
  const parsed = parseListQuery(request);
  return answerListPage(request, parsed, (list) => (list.format === 'adif' ? adifListPage(request, list) : jsonListPage(request, list)));
};
