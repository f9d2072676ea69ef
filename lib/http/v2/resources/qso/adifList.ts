import type { CustomTypesConfig } from 'pg';
import type { HandlerResult, RequestContext } from '../../resource.js';
import { EXPORT_SELECT_LIST, ExportRecordFormatter, exportRowText } from '../../../../export/adifRecord.js';
import { ByteOutput } from '../../../../export/byteOutput.js';
import { exportHeader } from '../../../../export/query.js';
import { listMeta, pageSql, type ListQuery } from './listQuery.js';
import { countTotal, withSnapshot } from './snapshot.js';

/** The export's rows carry their station location, which fills the MY_* fields. */
const EXPORT_OUTPUT = { select: EXPORT_SELECT_LIST, joins: 'JOIN stations s ON s.id = q.station_id' };

/** Every column as PostgreSQL's text, unparsed: the export reads values in that form. */
const RAW_TEXT: CustomTypesConfig = { getTypeParser: () => (value: string) => value };

/**
 * GET /qso?format=adif: the same filtered set as the JSON list, one page of it as an ADIF
 * document in ascending id order (records rendered by lib/export, as every export is). A page
 * holds at most 5000 records, so the document is built in memory. `lastfetchedid` is the highest
 * id of the page, or since_id when the page is empty, ready to be sent back as since_id.
 */
export async function adifList(request: RequestContext, list: ListQuery): Promise<HandlerResult> {
  const { total, rows } = await withSnapshot(request.services.bulkDb, async (client) => {
    const total = await countTotal(client, list);
    if (total <= list.pagination.offset) return { total, rows: [] as string[] };
    // Dates and timestamps in ISO form, as the export reads them.
    await client.query("SET LOCAL datestyle = 'ISO'");
    const { text, values } = pageSql(list, EXPORT_OUTPUT);
    const { rows } = await client.query<Array<string | null>>({ text, values, rowMode: 'array', types: RAW_TEXT });
    // lib/export formats rows as `COPY … TO` writes them; the page is read with a plain query in
    // the list's snapshot (a COPY cannot share it), so its values are put in that form.
    return { total, rows: rows.map(exportRowText) };
  });

  let adif: string | null = null;
  let lastFetchedId = list.sinceId;
  if (rows.length > 0) {
    adif = exportHeader();
    const formatter = new ExportRecordFormatter();
    const out = new ByteOutput();
    for (const text of rows) {
      const row = Buffer.from(text);
      formatter.format(row, 0, row.length, out);
      lastFetchedId = Math.max(lastFetchedId, formatter.id);
    }
    adif += out.take().toString('utf8');
  }
  return {
    data: { exported: rows.length, lastfetchedid: lastFetchedId, adif },
    meta: { ...listMeta(list, rows.length, total) },
  };
}
