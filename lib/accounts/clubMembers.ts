import type pg from 'pg';
import type { HideableUserdata } from '../config.js';
import { OFFICER_LEVEL } from '../auth/principal.js';

/** A member as the API shows it; the withholdable fields may be removed by the instance's config. */
export interface MemberRecord extends Partial<Record<HideableUserdata, string | null>> {
  user_id: number;
  user_callsign: string;
  permission_level: number;
}

const MEMBER_COLUMNS = `u.id AS user_id, u.callsign AS user_callsign, cm.level AS permission_level,
  u.firstname AS user_firstname, u.lastname AS user_lastname, u.locator AS user_locator,
  u.username AS user_name, u.email AS user_email, u.language AS user_language`;

/** Members of a clubstation by callsign (then id, for members sharing one). */
export async function listMembers(db: pg.Pool, clubId: number): Promise<MemberRecord[]> {
  const { rows } = await db.query<MemberRecord>(
    `SELECT ${MEMBER_COLUMNS} FROM club_members cm JOIN users u ON u.id = cm.user_id
      WHERE cm.club_id = $1 ORDER BY u.callsign, u.id`,
    [clubId],
  );
  return rows;
}

export async function findMember(db: pg.Pool, clubId: number, userId: number): Promise<MemberRecord | undefined> {
  const { rows } = await db.query<MemberRecord>(
    `SELECT ${MEMBER_COLUMNS} FROM club_members cm JOIN users u ON u.id = cm.user_id
      WHERE cm.club_id = $1 AND cm.user_id = $2`,
    [clubId, userId],
  );
  return rows[0];
}

/** Adds a membership; false when the user already is a member (the level is left alone). */
export async function insertMember(db: pg.Pool, clubId: number, userId: number, level: number): Promise<boolean> {
  const { rowCount } = await db.query(
    'INSERT INTO club_members (club_id, user_id, level) VALUES ($1, $2, $3) ON CONFLICT (club_id, user_id) DO NOTHING',
    [clubId, userId, level],
  );
  return rowCount === 1;
}

/** Changes a member's level; false when the user is not a member. */
export async function updateMemberLevel(db: pg.Pool, clubId: number, userId: number, level: number): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE club_members SET level = $3 WHERE club_id = $1 AND user_id = $2', [clubId, userId, level]);
  return rowCount === 1;
}

/** Whether a user exists, and whether it is a clubstation account; undefined for an unknown id. */
export async function accountKind(db: pg.Pool, userId: number): Promise<{ isClub: boolean } | undefined> {
  const { rows } = await db.query<{ is_club: boolean }>('SELECT is_club FROM users WHERE id = $1', [userId]);
  return rows[0] && { isClub: rows[0].is_club };
}

export interface ClubSummary {
  club_id: number;
  callsign: string;
  member_count: number;
}

/** Every clubstation of the instance, for an administrator choosing a club_id. */
export async function listClubs(db: pg.Pool): Promise<ClubSummary[]> {
  const { rows } = await db.query<ClubSummary>(
    `SELECT u.id AS club_id, u.callsign, count(cm.user_id)::int AS member_count
       FROM users u LEFT JOIN club_members cm ON cm.club_id = u.id
      WHERE u.is_club GROUP BY u.id ORDER BY u.callsign, u.id`,
  );
  return rows;
}

/** A member as v1 `list_clubmembers` shows it: the level as text, as the original's driver gave it. */
export interface V1MemberRecord {
  callsign: string;
  user_name: string;
  p_level: string;
}

/** Members of a clubstation, highest level first, then by callsign (v1 `list_clubmembers`). */
export async function listMembersByLevel(db: Pick<pg.Pool, 'query'>, clubId: number): Promise<V1MemberRecord[]> {
  const { rows } = await db.query<V1MemberRecord>(
    `SELECT u.callsign, u.username AS user_name, m.level::text AS p_level
       FROM club_members m JOIN users u ON u.id = m.user_id
      WHERE m.club_id = $1 ORDER BY m.level DESC, u.callsign`,
    [clubId],
  );
  return rows;
}

/** A user's standing in a club: their level, or officer for an instance administrator; null when neither. */
export async function clubStanding(db: Pick<pg.Pool, 'query'>, clubId: number, userId: number): Promise<{ level: number; callsign: string } | null> {
  const { rows } = await db.query<{ callsign: string; is_admin: boolean; level: number | null }>(
    `SELECT u.callsign, u.is_admin, m.level
       FROM users u LEFT JOIN club_members m ON m.club_id = $1 AND m.user_id = u.id
      WHERE u.id = $2`,
    [clubId, userId],
  );
  const row = rows[0];
  const level = row?.level ?? (row?.is_admin ? OFFICER_LEVEL : null);
  return row && level !== null ? { level, callsign: row.callsign } : null;
}
