import type { V1Call } from '../call.js';
import { V1Failure } from '../call.js';
import { sendJson } from '../answer.js';
import { requireKey } from '../keyAuth.js';
import { OFFICER_LEVEL } from '../../v2/principal.js';
import { listMembersByLevel } from '../../../accounts/clubMembers.js';

function authError(message: string): V1Failure {
  return new V1Failure({ status: 401, body: { status: 'error', message } });
}

/**
 * `api/list_clubmembers`: the members of the club whose officer created the key. "No members"
 * is answered 200 (the original sent 204, which no client can read a body from).
 */
export const listClubMembersCall: V1Call = {
  name: 'list_clubmembers',
  wrongJson: { status: 400, body: { status: 'failed', reason: 'wrong JSON' } },
  async handle(request) {
    const key = await requireKey(request, () => authError('Auth Error, invalid key'));
    if (!key.club || key.club.level < OFFICER_LEVEL) throw authError('Auth Error, not enough permissions for this operation');
    const rows = await listMembersByLevel(request.services.db, key.userId);
    if (rows.length === 0) return sendJson(request.ctx, 200, { status: 'failed', reason: 'No club members found', members: '' });
    sendJson(request.ctx, 200, { status: 'successful', members: rows });
  },
};
