import type pg from 'pg';
import { createUser } from '../../lib/accounts/users.js';
import { createStation } from '../../lib/accounts/stations.js';
import { addClubMember } from '../../lib/accounts/clubs.js';
import { createToken } from '../../lib/auth/tokens.js';
import { SCOPES, type Scope } from '../../lib/auth/scopes.js';

let counter = 0;

export interface Operator {
  userId: number;
  callsign: string;
  stationId: number;
  token: string;
  tokenId: number;
}

/** A user with one station location and a token holding `scopes` (all scopes by default). */
export async function createOperator(
  db: pg.Pool,
  options: { callsign?: string; scopes?: readonly Scope[]; admin?: boolean; expiresAt?: Date | null } = {},
): Promise<Operator> {
  counter += 1;
  const callsign = options.callsign ?? `DL${counter}TST`;
  const userId = await createUser(db, { username: `user${counter}-${process.pid}-${Date.now()}`, callsign, isAdmin: options.admin });
  const stationId = await createStation(db, { userId, name: `Home ${counter}`, callsign, gridsquare: 'JO62QM' });
  const { id, token } = await createToken(db, {
    userId, createdBy: userId, name: 'test', scopes: [...(options.scopes ?? SCOPES)], expiresAt: options.expiresAt ?? null,
  });
  return { userId, callsign, stationId, token, tokenId: id };
}

export interface ClubSetup {
  clubId: number;
  clubStationId: number;
  /** Token of a member acting for the club, by level. */
  memberToken(level: 3 | 6 | 9, callsign?: string): Promise<{ userId: number; callsign: string; token: string }>;
}

export async function createClub(db: pg.Pool, callsign = `DL${++counter}CLB`): Promise<ClubSetup> {
  const clubId = await createUser(db, { username: `club${counter}-${process.pid}-${Date.now()}`, callsign, isClub: true });
  const clubStationId = await createStation(db, { userId: clubId, name: 'Club site', callsign, gridsquare: 'JO62QM' });
  return {
    clubId,
    clubStationId,
    async memberToken(level, memberCallsign = `DL${++counter}MBR`) {
      const userId = await createUser(db, { username: `member${counter}-${process.pid}-${Date.now()}`, callsign: memberCallsign });
      await addClubMember(db, clubId, userId, level);
      const { token } = await createToken(db, { userId: clubId, createdBy: userId, name: 'club', scopes: [...SCOPES], expiresAt: null });
      return { userId, callsign: memberCallsign, token };
    },
  };
}
