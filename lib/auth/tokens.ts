import type pg from 'pg';
import { hashSecret, LAST_USED_PRECISION, randomHex } from './secrets.js';
import { ownedStationsSql, type OwnedStationsJson } from '../accounts/targetStations.js';
import type { Scope } from './scopes.js';
import { lookupStatements, namedLookup } from '../db/batchedLookup.js';

/** Every v2 token starts with this prefix; anything else (v1 keys included) is not a v2 token. */
export const V2_TOKEN_PREFIX = 'wl2_';

/** `wl2_` + 40 hex characters: 160 random bits. */
export function generateToken(): string {
  return V2_TOKEN_PREFIX + randomHex(20);
}

export const EXPIRY_CHOICES = ['30', '90', '365', 'never'] as const;
export type ExpiryChoice = (typeof EXPIRY_CHOICES)[number];

export function expiryDate(choice: ExpiryChoice, now = new Date()): Date | null {
  if (choice === 'never') return null;
  return new Date(now.getTime() + Number(choice) * 86_400_000);
}

export interface NewToken {
  userId: number;
  createdBy: number;
  name: string;
  scopes: Scope[];
  expiresAt: Date | null;
  /** The browser-app session the token belongs to (deleted with it, never listed): lib/auth/sessions.ts. */
  sessionId?: number;
}

type Queryable = Pick<pg.Pool, 'query'>;

export async function createToken(db: Queryable, input: NewToken): Promise<{ id: number; token: string }> {
  const token = generateToken();
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO api_tokens (user_id, created_by, name, token_hash, scopes, expires_at, session_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [input.userId, input.createdBy, input.name, hashSecret(token), input.scopes, input.expiresAt, input.sessionId ?? null],
  );
  return { id: rows[0]!.id, token };
}

/** A token as a request's authentication reads it, with its owner, acting member and locations. */
export interface TokenRecord {
  token_hash: string;
  id: number;
  name: string;
  user_id: number;
  created_by: number;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  owner_callsign: string;
  owner_is_club: boolean;
  member_callsign: string;
  member_is_admin: boolean;
  member_level: number | null;
  stations: OwnedStationsJson;
}

/**
 * The look-up records the use in the same statement, at most once a minute per token: clients
 * sharing a token would otherwise queue on its row, one UPDATE per request; a row another
 * statement is marking at that moment is skipped (SKIP LOCKED: several tokens marked in one
 * statement never wait for, or deadlock with, another's). It reads the owner's station
 * locations too, which nearly every request scopes by: one round trip for both. Named, in two
 * forms (namedLookup).
 */
const tokenLookupSql = (match: string) => `
  WITH found AS (
    SELECT t.token_hash, t.id, t.name, t.user_id, t.created_by, t.scopes, t.expires_at, t.revoked_at, t.last_used_at,
           o.callsign AS owner_callsign, o.is_club AS owner_is_club,
           m.callsign AS member_callsign, m.is_admin AS member_is_admin,
           cm.level AS member_level,
           ${ownedStationsSql('t.user_id')} AS stations
      FROM api_tokens t
      JOIN users o ON o.id = t.user_id
      JOIN users m ON m.id = t.created_by
      LEFT JOIN club_members cm ON cm.club_id = t.user_id AND cm.user_id = t.created_by
     WHERE t.token_hash ${match}
  ), due AS (
    SELECT a.id FROM api_tokens a
     WHERE a.id IN (SELECT id FROM found WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at >= now())
                      AND (last_used_at IS NULL OR last_used_at < now() - ${LAST_USED_PRECISION}))
       FOR UPDATE SKIP LOCKED
  ), used AS (
    UPDATE api_tokens SET last_used_at = now() WHERE id IN (SELECT id FROM due)
  )
  SELECT * FROM found`;

const TOKEN_LOOKUP = lookupStatements('token-lookup', tokenLookupSql);

/** The tokens with these SHA-256 hashes, by hash (unknown ones left out); marks the valid ones used. */
export async function lookupTokens(db: pg.Pool, hashes: string[]): Promise<Map<string, TokenRecord>> {
  const { rows } = await db.query<TokenRecord>(namedLookup(db, TOKEN_LOOKUP, hashes));
  return new Map(rows.map((row) => [row.token_hash, row]));
}

export async function revokeToken(db: pg.Pool, id: number): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id]);
  return (rowCount ?? 0) > 0;
}

export interface TokenRow {
  id: number;
  user_id: number;
  created_by: number;
  name: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
  last_used_at: Date | null;
}

export async function listTokens(db: pg.Pool, userId: number): Promise<TokenRow[]> {
  const { rows } = await db.query<TokenRow>(
    `SELECT id, user_id, created_by, name, scopes, expires_at, revoked_at, created_at, last_used_at
       FROM api_tokens WHERE user_id = $1 OR created_by = $1 ORDER BY id`,
    [userId],
  );
  return rows;
}

/**
 * Whose tokens a user manages in the app: the owner's (the club's when acting for one), and of
 * those only the ones `createdBy` made when set (a club member below officer level). Tokens of
 * browser sessions are never among them.
 */
export interface TokenKeeper {
  ownerId: number;
  createdBy: number | null;
}

/** The keeper's live tokens (revoked ones left out; expired ones kept, to be seen and removed), oldest first. */
export async function listKeptTokens(db: Queryable, keeper: TokenKeeper): Promise<TokenRow[]> {
  const { rows } = await db.query<TokenRow>(
    `SELECT id, user_id, created_by, name, scopes, expires_at, revoked_at, created_at, last_used_at
       FROM api_tokens
      WHERE user_id = $1 AND ($2::int IS NULL OR created_by = $2) AND session_id IS NULL AND revoked_at IS NULL
      ORDER BY id`,
    [keeper.ownerId, keeper.createdBy],
  );
  return rows;
}

/** Revokes one of the keeper's tokens (the sql/014 trigger then ends its live sockets); false when it is not theirs. */
export async function revokeKeptToken(db: Queryable, keeper: TokenKeeper, id: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE api_tokens SET revoked_at = now()
      WHERE id = $1 AND user_id = $2 AND ($3::int IS NULL OR created_by = $3) AND session_id IS NULL AND revoked_at IS NULL`,
    [id, keeper.ownerId, keeper.createdBy],
  );
  return (rowCount ?? 0) > 0;
}
