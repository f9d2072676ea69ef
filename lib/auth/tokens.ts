import type pg from 'pg';
import { hashSecret, randomHex } from './secrets.js';
import type { Scope } from './scopes.js';

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
}

export async function createToken(db: pg.Pool, input: NewToken): Promise<{ id: number; token: string }> {
  const token = generateToken();
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO api_tokens (user_id, created_by, name, token_hash, scopes, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [input.userId, input.createdBy, input.name, hashSecret(token), input.scopes, input.expiresAt],
  );
  return { id: rows[0]!.id, token };
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
