import type pg from 'pg';
import { lookupStatements, namedLookup } from '../db/batchedLookup.js';
import { hashSecret, LAST_USED_PRECISION, randomHex } from './secrets.js';
import type { TokenKeeper } from './tokens.js';
import { ownedStationsFrom, ownedStationsSql, type TargetStation, type OwnedStationsJson } from '../accounts/targetStations.js';

/**
 * A new v1 key: the original's `wl` prefix and 128 random bits (32 hex characters). The
 * original's 13 hex characters (52 bits) could be guessed; keys of that shape issued earlier
 * keep working, since keys are looked up by hash whatever their length.
 */
export function generateKey(): string {
  return 'wl' + randomHex(16);
}

export type KeyRights = 'r' | 'rw';

export interface V1Key {
  id: number;
  userId: number;
  createdBy: number;
  rights: KeyRights;
  /** The owner's station locations, read with the key (ownedStationsSql): a create needs no other round trip. */
  stations: TargetStation[];
}

/** What may be shown of a key once made: its prefix and last 4 characters. */
export function keyHint(key: string): string {
  return `${key.slice(0, 2)}…${key.slice(-4)}`;
}

export async function createKey(db: pg.Pool, userId: number, rights: KeyRights, createdBy = userId): Promise<{ id: number; key: string }> {
  const key = generateKey();
  const { rows } = await db.query<{ id: number }>(
    'INSERT INTO api_keys (user_id, created_by, key_hash, rights, key_hint) VALUES ($1, $2, $3, $4, $5) RETURNING id',
    [userId, createdBy, hashSecret(key), rights, keyHint(key)],
  );
  return { id: rows[0]!.id, key };
}

export interface KeyRow {
  id: number;
  key_hint: string | null;
  rights: KeyRights;
  created_at: Date;
  last_used_at: Date | null;
}

/** The keeper's active keys, oldest first (the same keeper rule as tokens: lib/auth/tokens.ts TokenKeeper). */
export async function listKeptKeys(db: pg.Pool, keeper: TokenKeeper): Promise<KeyRow[]> {
  const { rows } = await db.query<KeyRow>(
    `SELECT id, key_hint, rights, created_at, last_used_at FROM api_keys
      WHERE user_id = $1 AND ($2::int IS NULL OR created_by = $2) AND active ORDER BY id`,
    [keeper.ownerId, keeper.createdBy],
  );
  return rows;
}

/** Deletes one of the keeper's keys, refused from the next request on; false when it is not theirs. */
export async function deleteKeptKey(db: pg.Pool, keeper: TokenKeeper, id: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM api_keys WHERE id = $1 AND user_id = $2 AND ($3::int IS NULL OR created_by = $3)', [
    id, keeper.ownerId, keeper.createdBy,
  ]);
  return (rowCount ?? 0) > 0;
}

/**
 * Records the use at most once a minute per key, skipping a row another statement is marking
 * (SKIP LOCKED: several keys marked in one statement never wait for, or deadlock with, another's).
 * Named, in two forms (namedLookup).
 */
const KEY_LOOKUP = lookupStatements('key-lookup', (match) => `
  WITH found AS (SELECT id, user_id, created_by, rights, last_used_at, key_hash FROM api_keys WHERE key_hash ${match} AND active),
  due AS (
    SELECT a.id FROM api_keys a
     WHERE a.id IN (SELECT id FROM found WHERE last_used_at IS NULL OR last_used_at < now() - ${LAST_USED_PRECISION})
       FOR UPDATE SKIP LOCKED
  ),
  used AS (UPDATE api_keys SET last_used_at = now() WHERE id IN (SELECT id FROM due))
  SELECT key_hash, id, user_id, created_by, rights, ${ownedStationsSql('found.user_id')} AS stations FROM found`);

/** The hash a presented key is looked up by, or null for what cannot be a key. */
export function keyHash(key: unknown): string | null {
  return typeof key === 'string' && key.length > 0 && key.length <= 200 ? hashSecret(key) : null;
}

/** The active keys with these hashes, by hash (unknown ones left out); marks them used (LAST_USED_PRECISION). */
export async function lookupKeys(db: pg.Pool, hashes: string[]): Promise<Map<string, V1Key>> {
  const { rows } = await db.query<{ key_hash: string; id: number; user_id: number; created_by: number; rights: KeyRights; stations: OwnedStationsJson }>(
    namedLookup(db, KEY_LOOKUP, hashes),
  );
  return new Map(rows.map((row) => [row.key_hash, {
    id: row.id, userId: row.user_id, createdBy: row.created_by, rights: row.rights, stations: ownedStationsFrom(row.stations, row.user_id),
  }]));
}
