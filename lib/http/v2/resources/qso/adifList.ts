import { Readable } from 'node:stream';
import type { RequestContext } from '../../resource.js';
import { EXPORT_SELECT_LIST } from '../../../../export/adifRecord.js';
import { exportHeader } from '../../../../export/query.js';
import { copyOut } from '../../../../db/settingParams.js';
import { listMeta, pageSql, type ListQuery } from './listQuery.js';
import { countTotal } from './listTotal.js';
import { answerFromSnapshot, beginSnapshot, endSnapshot } from './snapshot.js';
import { adifListEnvelope } from './adifListStream.js';

/** The export's rows carry their station location, which fills the MY_* fields. */
const EXPORT_OUTPUT = { select: EXPORT_SELECT_LIST, joins: 'JOIN stations s ON s.id = q.station_id' };

/**
 * GET /qso?format=adif: the same filtered set as the JSON list, one page of it as an ADIF
 * document in ascending id order, streamed into the response as the export streams a file:
 * the page is a `COPY (SELECT …) TO STDOUT` in the list's snapshot (after its total), and each
 * piece of COPY output becomes ADIF records (lib/export) and then JSON string text. The COPY's
 * values are transaction-local settings (COPY takes no bound parameters). `lastfetchedid` is the
 * highest id of the page, or since_id when the page is empty, ready to be sent back as since_id.
 */
export async function adifList(request: RequestContext, list: ListQuery): Promise<undefined> {
  const { ctx, services } = request;
  const client = await services.bulkDb.connect();
  try {
    await beginSnapshot(client);
    const total = await countTotal(client, list);
    let rows: Readable = Readable.from([]);
    if (total > list.pagination.offset) {
      // NULL as empty, as the export writes it; a query that fails still gets the error envelope.
      const { text, values } = pageSql(list, EXPORT_OUTPUT);
      rows = await copyOut(client, text, values, true);
    }
    const body = adifListEnvelope(exportHeader(), list.sinceId, ({ exported }) => ({ ...request.meta, ...listMeta(list, exported, total) }));
    return answerFromSnapshot(ctx, client, rows, body);
  } catch (error) {
    endSnapshot(client, error as Error);
    throw error;
  }
}
