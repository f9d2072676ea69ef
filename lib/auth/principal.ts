// Who a request acts for, as every part of the server sees it (lib/http/v2/principal.ts authenticates it).
import type { TargetStation } from '../accounts/targetStations.js';

/** Club permission levels: 3 member, 6 member (ADIF), 9 officer. */
export const OFFICER_LEVEL = 9;

export interface ClubContext {
  clubId: number;
  level: number;
  /** Callsign of the acting member: the operator of the QSOs that member logs. */
  memberCallsign: string;
}

/** Who a request acts for: the token's owner, and for club tokens the acting member. */
export interface Principal {
  tokenId: number;
  tokenName: string;
  userId: number;
  ownerCallsign: string;
  actingUserId: number;
  scopes: ReadonlySet<string>;
  expiresAt: Date | null;
  isAdmin: boolean;
  club: ClubContext | null;
  /** The owner's station locations (for club tokens: the club's), ascending, read with the token. */
  stationIds: readonly number[];
  /** The same locations with what a write into one needs (ownedStationsSql). */
  stations: readonly TargetStation[];
}

/** Below officer level, QSO data is limited to the member's own operator QSOs. */
export function restrictedOperator(principal: Principal): string | null {
  return principal.club && principal.club.level < OFFICER_LEVEL ? principal.club.memberCallsign : null;
}
