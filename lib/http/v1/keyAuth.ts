import { findKey, type V1Key } from '../../auth/keys.js';
import { OFFICER_LEVEL } from '../v2/principal.js';
import type { V1Failure, V1Request } from './call.js';

/** The acting member of a club key (owner ≠ creator). */
export interface KeyClubMember {
  level: number;
  callsign: string;
}

/** A valid v1 key: `userId` owns the data (the club for club keys). */
export interface KeyHolder extends V1Key {
  club: KeyClubMember | null;
}

/**
 * The creator's standing in the club that owns the key: their level, or officer for an
 * instance administrator (as for v2 club tokens); null once the membership is withdrawn.
 */
async function clubMember(request: V1Request, key: V1Key): Promise<KeyClubMember | null> {
  const { rows } = await request.services.db.query<{ callsign: string; is_admin: boolean; level: number | null }>(
    `SELECT u.callsign, u.is_admin, m.level
       FROM users u LEFT JOIN club_members m ON m.club_id = $1 AND m.user_id = u.id
      WHERE u.id = $2`,
    [key.userId, key.createdBy],
  );
  const row = rows[0];
  const level = row?.level ?? (row?.is_admin ? OFFICER_LEVEL : null);
  return row && level !== null ? { level, callsign: row.callsign } : null;
}

/**
 * The key the request presents, or null when it is missing, unknown, disabled, or a club key
 * whose creator has left the club (such a key no longer acts for the club). Records the key
 * id for the request log.
 */
export async function authorizeKey(request: V1Request): Promise<KeyHolder | null> {
  const key = await findKey(request.services.db, request.key);
  if (!key) return null;
  let club: KeyClubMember | null = null;
  if (key.userId !== key.createdBy) {
    club = await clubMember(request, key);
    if (!club) return null;
  }
  request.ctx.state.keyId = key.id;
  return { ...key, club };
}

/** The presented key, else `missing` is thrown. */
export async function requireKey(request: V1Request, missing: V1Failure): Promise<KeyHolder> {
  const key = await authorizeKey(request);
  if (!key) throw missing;
  return key;
}

/** A read/write key (SPEC: writes need one): `missing` without a key, `readOnly` for an 'r' key. */
export async function requireWriteKey(request: V1Request, missing: V1Failure, readOnly: V1Failure): Promise<KeyHolder> {
  const key = await requireKey(request, missing);
  if (key.rights !== 'rw') throw readOnly;
  return key;
}
