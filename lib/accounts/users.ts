import type pg from 'pg';
import { inTransaction } from '../db/transaction.js';

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
  /** Already hashed (lib/auth/passwords.ts); absent: the user cannot sign in until one is set. */
  passwordHash?: string;
}

export async function createUser(db: pg.Pool, user: NewUser): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO users (username, callsign, email, firstname, lastname, locator, language, is_club, is_admin, password_hash)
     VALUES ($1, upper($2), $3, $4, $5, upper($6), coalesce($7, 'english'), $8, $9, $10) RETURNING id`,
    [user.username, user.callsign, user.email ?? null, user.firstname ?? null, user.lastname ?? null,
      user.locator ?? null, user.language ?? null, user.isClub ?? false, user.isAdmin ?? false, user.passwordHash ?? null],
  );
  return rows[0]!.id;
}

/** A user as the browser app shows them. */
export interface AppUser {
  id: number;
  username: string;
  callsign: string;
  is_admin: boolean;
}

/** The account a sign-in names, with its stored password (null: none set). Clubstation accounts never sign in. */
export async function findSignInUser(db: pg.Pool, username: string): Promise<(AppUser & { password_hash: string | null }) | undefined> {
  const { rows } = await db.query<AppUser & { password_hash: string | null }>(
    'SELECT id, username, callsign, is_admin, password_hash FROM users WHERE username = $1 AND NOT is_club',
    [username],
  );
  return rows[0];
}

export async function passwordHashOf(db: pg.Pool, userId: number): Promise<string | null> {
  const { rows } = await db.query<{ password_hash: string | null }>('SELECT password_hash FROM users WHERE id = $1', [userId]);
  return rows[0]?.password_hash ?? null;
}

/**
 * Sets a user's password and ends every browser session of theirs (their session tokens go with
 * them), in one transaction: nothing signed in with the old password outlives the change.
 * False when there is no such user.
 */
export function setPassword(db: pg.Pool, userId: number, passwordHash: string): Promise<boolean> {
  return inTransaction(db, async (client) => {
    const { rowCount } = await client.query('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, passwordHash]);
    await client.query('DELETE FROM app_sessions WHERE user_id = $1', [userId]);
    return rowCount === 1;
  });
}

export interface UserSummary {
  id: number;
  username: string;
  callsign: string;
  email: string | null;
  is_club: boolean;
  is_admin: boolean;
  created_at: Date;
}

/** Every account, oldest first (an instance has a handful, not millions: no paging). */
export async function listUsers(db: pg.Pool): Promise<UserSummary[]> {
  const { rows } = await db.query<UserSummary>('SELECT id, username, callsign, email, is_club, is_admin, created_at FROM users ORDER BY id');
  return rows;
}

export async function userExists(db: pg.Pool, id: number): Promise<boolean> {
  return (await db.query('SELECT 1 FROM users WHERE id = $1', [id])).rowCount === 1;
}

export async function anyUser(db: pg.Pool): Promise<boolean> {
  return (await db.query('SELECT 1 FROM users LIMIT 1')).rowCount === 1;
}
