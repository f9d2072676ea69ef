import type { RequestContext } from '../../resource.js';
import { EXPORT_SELECT_LIST, type ExportLocations } from '../../../../export/adifRecord.js';
import { readExportLocations } from '../../../../export/locations.js';
import { exportHeader } from '../../../../export/query.js';
import type { ListQuery } from '../../../../qso/list/query.js';
import { listMeta } from './listParams.js';
import type { ListPage } from './listPage.js';
import { adifListEnvelope } from './adifListStream.js';
import { pageStatement } from '../../../../qso/list/seek.js';
import { copyBoundOut } from '../../../../db/settingParams.js';

/**
 * GET /qso?format=adif: the same filtered set as the JSON list, one page of it as an ADIF
 * document in ascending id order, streamed into the response as the export streams a file:
 * the page is a `COPY (SELECT …) TO STDOUT` in the list's snapshot (answerListPage), and each
 * piece of COPY output becomes ADIF records (lib/export) and then JSON string text. The COPY's
 * values are transaction-local settings (COPY takes no bound parameters); a deep page starts from
 * its block of ids. `lastfetchedid` is the highest id of the page, or since_id when the page is
 * empty, ready to be sent back as since_id.
 */
export function adifListPage(request: RequestContext, list: ListQuery): ListPage {
  /** The locations filling the records' MY_* fields, read in the snapshot with a page that has rows. */
  let locations: ExportLocations = new Map();
  return {
    query: (client) => pageStatement(client, list, EXPORT_SELECT_LIST),
    read: async (client, boundText) => {
      locations = await readExportLocations(client, list.scope.stationIds);
      // NULL as empty, as the export writes it.
      return copyBoundOut(client, boundText, true);
    },
    envelope: (total) => adifListEnvelope(exportHeader(), locations, list.sinceId, ({ exported }) => ({ ...request.meta, ...listMeta(list, exported, total) })),
  };
}
