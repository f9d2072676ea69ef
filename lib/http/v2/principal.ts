import { ApiError } from '../errors.js';
import { hashSecret } from '../../auth/secrets.js';
import { V2_TOKEN_PREFIX, type TokenRecord } from '../../auth/tokens.js';
import { ownedStationsFrom } from '../../accounts/targetStations.js';
import type { BatchedLookup } from '../../db/batchedLookup.js';

export { OFFICER_LEVEL, restrictedOperator, type ClubContext, type Principal } from '../../auth/principal.js';
import { OFFICER_LEVEL, type ClubContext, type Principal } from '../../auth/principal.js';

export function requireClubLevel(principal: Principal, required: number): void {
  if (principal.club && principal.club.level < required) {
    throw new ApiError(403, 'insufficient_club_permission', `This action needs club permission level ${required}`, {
      required_level: required,
      granted_level: principal.club.level,
    });
  }
}

/** `Authorization: Bearer <token>` (scheme case-insensitive), else `X-API-Key`. */
export function presentedToken(authorization: string | undefined, apiKey: string | undefined): string | null {
  const bearer = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (bearer) return bearer[1]!;
  const fallback = apiKey?.trim();
  return fallback ? fallback : null;
}

/** The principal of a presented v2 token (looked up with the other requests' at the same moment: services.credentials). */
export async function authenticate(tokens: BatchedLookup<TokenRecord>, token: string | null): Promise<Principal> {
  if (!token) throw new ApiError(401, 'unauthorized', 'Missing API token');
  if (!token.startsWith(V2_TOKEN_PREFIX)) {
    throw new ApiError(401, 'invalid_token', `API v2 requires a ${V2_TOKEN_PREFIX} token; legacy v1 API keys are not accepted`);
  }
  const row = await tokens.get(hashSecret(token));
  if (!row || row.revoked_at) throw new ApiError(401, 'invalid_token', 'Invalid or revoked API token');
  if (row.expires_at && row.expires_at.getTime() < Date.now()) throw new ApiError(401, 'token_expired', 'API token has expired');

  let club: ClubContext | null = null;
  if (row.owner_is_club && row.created_by !== row.user_id) {
    // Re-read on every request: a withdrawn membership takes effect at once.
    const level = row.member_level ?? (row.member_is_admin ? OFFICER_LEVEL : null);
    if (level === null) throw new ApiError(403, 'club_access_revoked', 'Club membership of this token has been withdrawn');
    club = { clubId: row.user_id, level, memberCallsign: row.member_callsign };
  }
  const stations = ownedStationsFrom(row.stations, row.user_id);
  return {
    tokenId: row.id,
    tokenName: row.name,
    userId: row.user_id,
    ownerCallsign: row.owner_callsign,
    actingUserId: row.created_by,
    scopes: new Set(row.scopes),
    expiresAt: row.expires_at,
    isAdmin: row.member_is_admin,
    club,
    stationIds: stations.map((station) => station.id),
    stations,
  };
}
