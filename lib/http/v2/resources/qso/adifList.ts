import type { HandlerResult, RequestContext } from '../../resource.js';
import { EXPORT_SELECT_LIST, formatExportRow, rowId, type ExportRow } from '../../../../export/adifRecord.js';
import { exportHeader } from '../../../../export/query.js';
import { listMeta, pageSql, type ListQuery } from './listQuery.js';
import { countTotal, withSnapshot } from './snapshot.js';

/** The export's rows carry their station location, which fills the MY_* fields. */
const EXPORT_OUTPUT = { select: EXPORT_SELECT_LIST, joins: 'JOIN stations s ON s.id = q.station_id' };

/**
 * GET /qso?format=adif: the same filtered set as the JSON list, one page of it as an ADIF
 * document in ascending id order (records rendered by lib/export, as every export is). A page
 * holds at most 5000 records, so the document is built in memory. `lastfetchedid` is the highest
 * id of the page, or since_id when the page is empty, ready to be sent back as since_id.
 */
export async function adifList(request: RequestContext, list: ListQuery): Promise<HandlerResult> {
  const { total, rows } = await withSnapshot(request.services.db, async (client) => {
    const total = await countTotal(client, list);
    if (total <= list.pagination.offset) return { total, rows: [] as ExportRow[] };
    const { text, values } = pageSql(list, EXPORT_OUTPUT);
    const { rows } = await client.query<string[]>({ text, values, rowMode: 'array' });
    return { total, rows: rows as ExportRow[] };
  });

  let adif: string | null = null;
  let lastFetchedId = list.sinceId;
  if (rows.length > 0) {
    adif = exportHeader();
    for (const row of rows) {
      adif += formatExportRow(row);
      lastFetchedId = Math.max(lastFetchedId, rowId(row));
    }
  }
  return {
    data: { exported: rows.length, lastfetchedid: lastFetchedId, adif },
    meta: { ...listMeta(list, rows.length, total) },
  };
}
