import type pg from 'pg';

/** Club permission levels by name, as the operator command line accepts them. */
export const CLUB_LEVELS: Record<string, number> = { member: 3, member_adif: 6, officer: 9 };

export function parseClubLevel(value: string): number {
  const level = CLUB_LEVELS[value] ?? Number(value);
  if (![3, 6, 9].includes(level)) throw new Error(`level must be member, member_adif, officer, 3, 6 or 9 (got "${value}")`);
  return level;
}

export class ClubError extends Error {}

export async function addClubMember(db: pg.Pool, clubId: number, userId: number, level: number): Promise<void> {
  const { rows } = await db.query<{ is_club: boolean }>('SELECT is_club FROM users WHERE id = $1', [clubId]);
  if (!rows[0]) throw new ClubError(`club ${clubId} does not exist`);
  if (!rows[0].is_club) throw new ClubError(`user ${clubId} is not a clubstation account`);
  if (clubId === userId) throw new ClubError('a clubstation cannot be a member of itself');
  await db.query(
    `INSERT INTO club_members (club_id, user_id, level) VALUES ($1, $2, $3)
     ON CONFLICT (club_id, user_id) DO UPDATE SET level = EXCLUDED.level`,
    [clubId, userId, level],
  );
}

/** Withdraws membership; the member's club tokens then answer 403 club_access_revoked. */
export async function removeClubMember(db: pg.Pool, clubId: number, userId: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM club_members WHERE club_id = $1 AND user_id = $2', [clubId, userId]);
  return (rowCount ?? 0) > 0;
}

export async function clubLevel(db: pg.Pool, clubId: number, userId: number): Promise<number | null> {
  const { rows } = await db.query<{ level: number }>('SELECT level FROM club_members WHERE club_id = $1 AND user_id = $2', [clubId, userId]);
  return rows[0]?.level ?? null;
}

export interface Membership {
  club_id: number;
  callsign: string;
  level: number;
}

/** The clubstations a user is a member of, by callsign. */
export async function membershipsOf(db: pg.Pool, userId: number): Promise<Membership[]> {
  const { rows } = await db.query<Membership>(
    `SELECT cm.club_id, c.callsign, cm.level FROM club_members cm JOIN users c ON c.id = cm.club_id
      WHERE cm.user_id = $1 ORDER BY c.callsign, c.id`,
    [userId],
  );
  return rows;
}
