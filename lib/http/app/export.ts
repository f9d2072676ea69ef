import { Readable } from 'node:stream';
import type Router from '@koa/router';
import type { Services } from '../../services.js';
import { exportAdifDocument, type ExportFilter } from '../../export/query.js';
import { CONFIRMATION_KEYS } from '../../qso/confirmationTypes.js';
import { restrictedOperator } from '../../auth/principal.js';
import { claimOwner } from '../../db/queryScope.js';
import { ApiError } from '../errors.js';
import { enforceRateLimit } from '../rateLimit.js';
import { singleValuedQuery } from '../v2/dispatcher.js';
import { authenticate } from '../v2/principal.js';
import { parseCallsignParam, parseDateParam, parseKeyList, parseStationIds, present } from '../v2/params.js';
import { requireSession } from './session.js';

/**
 * GET /app/export.adi: the QSOs of the Log page's filter (the v2 list's parameters: callsign,
 * band, mode, qso_since, qso_until, qsl_filter, station_id) as an ADIF file the browser downloads,
 * streamed from the export's COPY (lib/export/query.ts), never held whole here or in the page.
 * A plain link, so no X-CSRF-Token: it changes nothing, the SameSite=Strict cookie never comes
 * from another site's page and the router refuses other origins (Origin, Sec-Fetch-Site). It
 * reads with the session's own v2 token, so the v2 list's rules hold: scope qso:read, the owner's
 * (or club's) locations, a member's own QSOs below officer level, the `api_v2_qso` rate limit.
 */
export function exportRoutes(router: Router, services: Services): void {
  router.get('/export.adi', async (ctx) => {
    const session = await requireSession(ctx, services, { csrf: false, renew: true });
    const principal = await authenticate(services.credentials.tokens, session.apiToken);
    claimOwner(principal.userId);
    await enforceRateLimit(services, 'api_v2_qso', `token_${principal.tokenId}`);
    if (!principal.scopes.has('qso:read')) {
      throw new ApiError(403, 'insufficient_scope', 'This request needs the scope qso:read', { required_scope: 'qso:read' });
    }
    const query = singleValuedQuery(ctx);
    const filter: ExportFilter = {
      stationIds: [...parseStationIds(principal, query)],
      operator: restrictedOperator(principal),
      callsign: parseCallsignParam(query),
      band: present(query.band) ? query.band : null,
      mode: present(query.mode) && query.mode.trim() !== '' ? query.mode : null,
      since: parseDateParam(query, 'qso_since'),
      until: parseDateParam(query, 'qso_until'),
      qslTypes: parseKeyList(query, 'qsl_filter', CONFIRMATION_KEYS),
      // As the v2 list's ADIF pages: nothing a running import may still commit below.
      commitSafe: true,
    };
    const pieces = exportAdifDocument(services.bulkDb, filter)[Symbol.asyncIterator]();
    // The first piece before the answer's head: a failure to start is still an error answer.
    const first = await pieces.next();
    const callsign = (principal.ownerCallsign ?? 'log').replace(/[^A-Za-z0-9]+/g, '-');
    ctx.set('Content-Disposition', `attachment; filename="${callsign}-${new Date().toISOString().slice(0, 10)}.adi"`);
    ctx.type = 'text/plain; charset=utf-8';
    const rest = async function* () {
      if (!first.done) yield first.value;
      for (let next = await pieces.next(); !next.done; next = await pieces.next()) yield next.value;
    };
    const body = Readable.from(rest(), { objectMode: false });
    // Ends the COPY (and frees its connection) however the response ends, a client gone mid-file included.
    body.once('close', () => {
      pieces.return(undefined).catch((error: Error) => services.logger.warn('app export not closed', { error: error.message }));
    });
    ctx.body = body;
  });
}
