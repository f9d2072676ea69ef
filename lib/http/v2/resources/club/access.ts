import type pg from 'pg';
import { forbidden, notFound, validationError } from '../../../errors.js';
import { present } from '../../params.js';
import { OFFICER_LEVEL, requireClubLevel, type Principal } from '../../principal.js';
import { accountKind } from '../../../../accounts/clubMembers.js';

/**
 * Which clubstation a request manages. A club token acts for its own club and needs officer
 * level; `club_id` may only repeat that club. A personal token must be an administrator's and
 * names the club with `club_id`. Everyone else is refused.
 *
 * Returns null only when an administrator named no club and `adminMayOmit` allows it (the list
 * then shows the clubstations to choose from).
 */
export async function resolveClub(db: pg.Pool, principal: Principal, query: Record<string, string>, adminMayOmit: boolean): Promise<number | null> {
  const requested = present(query.club_id) ? query.club_id.trim() : null;
  if (principal.club) {
    requireClubLevel(principal, OFFICER_LEVEL);
    if (requested !== null && requested !== String(principal.club.clubId)) {
      throw forbidden('club_id does not match the clubstation of this token', { field: 'club_id' });
    }
    return principal.club.clubId;
  }
  if (!principal.isAdmin) throw forbidden('Club members are managed with a club officer\'s club token or an administrator\'s token');
  if (requested === null) {
    if (adminMayOmit) return null;
    throw validationError('club_id is required with an administrator token', { field: 'club_id' });
  }
  if (!/^[1-9]\d{0,9}$/.test(requested)) throw validationError('club_id must be the user id of a clubstation', { field: 'club_id' });
  const clubId = Number(requested);
  if (!(await accountKind(db, clubId))?.isClub) throw notFound('Unknown clubstation');
  return clubId;
}

/** Nobody changes their own membership through the API: an officer could lock the club out. */
export function refuseOwnMembership(principal: Principal, userId: number): void {
  if (userId === principal.actingUserId) throw forbidden('Your own club membership cannot be changed through the API', { user_id: userId });
}
