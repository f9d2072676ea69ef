import type { Handler, RequestContext } from '../../resource.js';
import { QsoPageFromCopy } from '../../../../qso/copyJson.js';
import { QsoPageFromRows } from '../../../../qso/pageRows.js';
import { readPageRows, ROWS_PAGE_MAX } from '../../../../db/pageRows.js';
import { copyBoundOut } from '../../../../db/settingParams.js';
import { pageSql, type ListQuery } from '../../../../qso/list/query.js';
import { listMeta, parseListQuery } from './listParams.js';
import { CopyPageEnvelope } from './jsonListStream.js';
import { adifListPage } from './adifList.js';
import { pageSeek } from '../../../../qso/list/seek.js';
import { answerListPage, type ListPage } from './listPage.js';

/**
 * Whether a JSON page is read as rows of a named statement, planned once per connection for the
 * values of the first page it reads (the planner estimates with the settings' values) and kept:
 * a small page whose every branch reads an index in the page's order led by its filters (the
 * scope, one kind of band, mode, qsl_filter, a range of dates, a seek), which any values suit.
 * Not a callsign or two kinds of filter: their plan for a location of few QSOs walks the time
 * index and drops what does not match, which kept for a large location took 4.3 s (a callsign)
 * and 1.7 s (mode and qsl_filter) instead of a millisecond (benchmarks/RESULTS.md).
 */
export function readsRows(list: ListQuery): boolean {
  return list.pagination.perPage <= ROWS_PAGE_MAX && list.callsign === null && list.bucketFilterKinds.length <= 1;
}

/**
 * JSON list: a page whose rows become the QSO objects' JSON as they arrive, straight into the
 * response body: a small page's rows from a named statement (readsRows, QsoPageFromRows), the
 * others' COPY text (QsoPageFromCopy); a deep page starts from its month.
 */
function jsonListPage(request: RequestContext, list: ListQuery): ListPage {
  const byRows = readsRows(list);
  return {
    query: async (client) => pageSql(list, undefined, await pageSeek(client, list)),
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
