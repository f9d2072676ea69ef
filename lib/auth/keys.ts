import type pg from 'pg';
import { lookupStatements, namedLookup } from '../db/batchedLookup.js';
import { hashSecret, LAST_USED_PRECISION, randomHex } from './secrets.js';
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

export async function createKey(db: pg.Pool, userId: number, rights: KeyRights, createdBy = userId): Promise<string> {
  const key = generateKey();
  await db.query('INSERT INTO api_keys (user_id, created_by, key_hash, rights) VALUES ($1, $2, $3, $4)', [
    userId, createdBy, hashSecret(key), rights,
  ]);
  return key;
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
    namedLookup(KEY_LOOKUP, hashes),
  );
  return new Map(rows.map((row) => [row.key_hash, {
    id: row.id, userId: row.user_id, createdBy: row.created_by, rights: row.rights, stations: ownedStationsFrom(row.stations, row.user_id),
  }]));
}
