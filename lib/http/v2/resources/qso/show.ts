import { notFound } from '../../../errors.js';
import type { Handler } from '../../resource.js';
import { findVisibleQso } from '../../../../qso/repository.js';
import { presentQso } from '../../../../qso/present.js';
import { qsoId, requestScope } from './scope.js';

/** GET /qso/{id}: one QSO; missing, foreign and (club members below officer) other operators' QSOs are 404. */
export const showQso: Handler = async (request) => {
  const row = await findVisibleQso(request.services.db, requestScope(request), qsoId(request));
  if (!row) throw notFound('QSO not found');
  return { data: presentQso(row) };
};
