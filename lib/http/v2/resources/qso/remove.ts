import { notFound } from '../../../errors.js';
import type { Handler } from '../../resource.js';
import { deleteVisibleQso } from '../../../../qso/repository.js';
import { inQsoTransaction } from '../../../../qso/writeLock.js';
import { publishQsoEvent } from '../../../../qso/events.js';
import { qsoId, requestScope } from './scope.js';

/** DELETE /qso/{id}: the QSO and what hangs on it (one cascading statement); 204 without a body. */
export const removeQso: Handler = async (request) => {
  const id = qsoId(request);
  const scope = requestScope(request);
  const deleted = await inQsoTransaction(request.services.db, [request.principal.userId], (client) => deleteVisibleQso(client, scope, id));
  if (!deleted) throw notFound('QSO not found');
  publishQsoEvent(request.services, request.principal.userId, { type: 'qso_deleted', qso_id: id, station_id: deleted.stationId });
  request.ctx.status = 204;
  return undefined;
};
