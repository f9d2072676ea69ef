import type pg from 'pg';

export interface NewUser {
  username: string;
  callsign: string;
  email?: string;
  firstname?: string;
  lastname?: string;
  locator?: string;
  language?: string;
  isClub?: boolean;
  isAdmin?: boolean;
}

export async function createUser(db: pg.Pool, user: NewUser): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO users (username, callsign, email, firstname, lastname, locator, language, is_club, is_admin)
     VALUES ($1, upper($2), $3, $4, $5, upper($6), coalesce($7, 'english'), $8, $9) RETURNING id`,
    [user.username, user.callsign, user.email ?? null, user.firstname ?? null, user.lastname ?? null,
      user.locator ?? null, user.language ?? null, user.isClub ?? false, user.isAdmin ?? false],
  );
  return rows[0]!.id;
}
