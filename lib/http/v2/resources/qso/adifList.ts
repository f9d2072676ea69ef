import { once } from 'node:events';
import { Readable } from 'node:stream';
import { to as copyTo } from 'pg-copy-streams';
import type { RequestContext } from '../../resource.js';
import { EXPORT_SELECT_LIST } from '../../../../export/adifRecord.js';
import { exportHeader } from '../../../../export/query.js';
import { bindForCopy } from '../../../../db/settingParams.js';
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
      // NULL as empty, as the export writes it.
      const { text, values } = pageSql(list, EXPORT_OUTPUT);
      rows = client.query(copyTo(`COPY (${await bindForCopy(client, text, values)}) TO STDOUT WITH (NULL '')`));
      // The answer is committed to 200 only once the COPY has produced its first rows: a query
      // that fails still gets the error envelope instead of a cut-off body.
      await once(rows, 'readable');
    }
    const body = adifListEnvelope(exportHeader(), list.sinceId, ({ exported }) => ({ ...request.meta, ...listMeta(list, exported, total) }));
    return answerFromSnapshot(ctx, client, rows, body);
  } catch (error) {
    endSnapshot(client, error as Error);
    throw error;
  }
}
