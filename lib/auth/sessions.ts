import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { inTransaction } from '../db/transaction.js';
import type { AppUser } from '../accounts/users.js';
import { OFFICER_LEVEL } from './principal.js';
import { grantableScopes } from './scopes.js';
import { hashSecret } from './secrets.js';
import { createToken } from './tokens.js';

/**
 * Browser-app sessions (docs/security.md "Accounts and sessions"). The cookie carries a random
 * secret; the table keeps its SHA-256 only. Each session owns one v2 token (api_tokens.session_id,
 * deleted with it) that the app calls /api/v2 with; its value is kept sealed (AES-256-GCM) under
 * a key derived from the cookie's secret, so that the app can have it back after a reload while
 * the table alone reveals nothing usable.
 */

export interface SessionSettings {
  /** A session unused this long (no app call, no use of its token) is over. */
  idleSeconds: number;
  /** A session is over this long after sign-in, however used. */
  absoluteSeconds: number;
}

export interface ActingAs {
  club_id: number;
  callsign: string;
  level: number;
}

export interface Session {
  id: number;
  user: AppUser;
  csrf: string;
  actingAs: ActingAs | null;
  apiToken: string;
  apiTokenExpiresAt: Date;
}

const TOKEN_NAME = 'Browser session';

function sealKey(secret: string): Buffer {
  return createHmac('sha256', secret).update('logbook app session: api token seal v1').digest();
}

function seal(secret: string, token: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey(secret), iv);
  const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

function unseal(secret: string, sealed: string | null): string | null {
  if (!sealed) return null;
  try {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', sealKey(secret), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** The hash a presented cookie value is looked up by, or null for what cannot be one. */
function secretHash(secret: string | undefined): string | null {
  return secret && /^[A-Za-z0-9_-]{43}$/.test(secret) ? hashSecret(secret) : null;
}

interface Issued {
  apiToken: string;
  apiTokenExpiresAt: Date;
}

/**
 * Replaces the session's token with a new one for `acting` (the user's own, or a club's acting as
 * the member, as `token create --club` makes one), with every scope the user may hold there,
 * expiring after the idle time (never after the session). The session row is locked, so that
 * two renewals at once take turns.
 */
async function issueToken(db: pg.Pool, secret: string, sessionId: number, user: AppUser, acting: ActingAs | null, settings: SessionSettings): Promise<Issued> {
  return inTransaction(db, async (client) => {
    const { rows } = await client.query<{ expires_at: Date; token_expires_at: Date }>(
      `SELECT expires_at, least(expires_at, now() + make_interval(secs => $2)) AS token_expires_at
         FROM app_sessions WHERE id = $1 FOR UPDATE`,
      [sessionId, settings.idleSeconds],
    );
    await client.query('DELETE FROM api_tokens WHERE session_id = $1', [sessionId]);
    const expiresAt = rows[0]!.token_expires_at;
    const { token } = await createToken(client, {
      userId: acting?.club_id ?? user.id,
      createdBy: user.id,
      name: TOKEN_NAME,
      scopes: grantableScopes(user.is_admin, acting?.level ?? null, OFFICER_LEVEL),
      expiresAt,
      sessionId,
    });
    await client.query('UPDATE app_sessions SET api_token_sealed = $2, acting_club_id = $3 WHERE id = $1', [
      sessionId, seal(secret, token), acting?.club_id ?? null,
    ]);
    return { apiToken: token, apiTokenExpiresAt: expiresAt };
  });
}

/** Drops sessions past their absolute end or idle (a few per sign-in, so none piles up). */
async function sweepSessions(db: pg.Pool, settings: SessionSettings): Promise<void> {
  await db.query(
    `DELETE FROM app_sessions WHERE id IN (
       SELECT s.id FROM app_sessions s
        WHERE s.expires_at <= now()
           OR (s.last_seen_at < now() - make_interval(secs => $1)
               AND NOT EXISTS (SELECT 1 FROM api_tokens t WHERE t.session_id = s.id AND t.last_used_at >= now() - make_interval(secs => $1)))
        LIMIT 100)`,
    [settings.idleSeconds],
  );
}

/** Sessions one user may hold at once; a sign-in beyond ends their least recently used one. */
export const MAX_SESSIONS_PER_USER = 20;

/**
 * A new session for a user who just proved their password: the cookie's secret and the session.
 * The session the browser held before (`previous`, its old cookie) ends.
 */
export async function startSession(db: pg.Pool, user: AppUser, settings: SessionSettings, previous?: string): Promise<{ secret: string; session: Session }> {
  await sweepSessions(db, settings);
  const previousHash = secretHash(previous);
  if (previousHash) await db.query('DELETE FROM app_sessions WHERE id_hash = $1', [previousHash]);
  await db.query(
    `DELETE FROM app_sessions WHERE id IN (
       SELECT id FROM app_sessions WHERE user_id = $1 ORDER BY last_seen_at DESC OFFSET $2)`,
    [user.id, MAX_SESSIONS_PER_USER - 1],
  );
  const secret = randomBytes(32).toString('base64url');
  const csrf = randomBytes(32).toString('base64url');
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO app_sessions (id_hash, user_id, csrf, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4)) RETURNING id`,
    [hashSecret(secret), user.id, csrf, settings.absoluteSeconds],
  );
  const id = Number(rows[0]!.id);
  const issued = await issueToken(db, secret, id, user, null, settings);
  return { secret, session: { id, user, csrf, actingAs: null, ...issued } };
}

interface SessionRow {
  id: string;
  csrf: string;
  alive: boolean;
  renew: boolean;
  api_token_sealed: string | null;
  token_expires_at: Date | null;
  user_id: number;
  username: string;
  callsign: string;
  is_admin: boolean;
  club_id: number | null;
  club_callsign: string | null;
  club_level: number | null;
}

/**
 * The live session the cookie's secret names, or null (unknown, idle, or past its end: then it
 * is deleted). Use of its token counts as activity. With `renew` (the app asking for its session)
 * the token is replaced when less than half the idle time is left of it, or when the acting
 * club's membership was withdrawn (the session falls back to the user's own account).
 */
export async function loadSession(db: pg.Pool, secret: string | undefined, settings: SessionSettings, renew: boolean): Promise<Session | null> {
  const hash = secretHash(secret);
  if (!hash) return null;
  const { rows } = await db.query<SessionRow>(
    `SELECT s.id, s.csrf, s.api_token_sealed,
            s.expires_at > now() AND greatest(s.last_seen_at, t.last_used_at) > now() - make_interval(secs => $2) AS alive,
            t.expires_at IS NULL OR t.expires_at < least(s.expires_at, now() + make_interval(secs => $2 / 2)) AS renew,
            t.expires_at AS token_expires_at,
            u.id AS user_id, u.username, u.callsign, u.is_admin,
            s.acting_club_id AS club_id, c.callsign AS club_callsign, cm.level AS club_level
       FROM app_sessions s
       JOIN users u ON u.id = s.user_id
       LEFT JOIN LATERAL (SELECT expires_at, last_used_at FROM api_tokens WHERE session_id = s.id ORDER BY id DESC LIMIT 1) t ON true
       LEFT JOIN users c ON c.id = s.acting_club_id
       LEFT JOIN club_members cm ON cm.club_id = s.acting_club_id AND cm.user_id = s.user_id
      WHERE s.id_hash = $1`,
    [hash, settings.idleSeconds],
  );
  const row = rows[0];
  if (!row) return null;
  const id = Number(row.id);
  if (!row.alive) {
    await endSession(db, id);
    return null;
  }
  await db.query('UPDATE app_sessions SET last_seen_at = now() WHERE id = $1', [id]);
  const user: AppUser = { id: row.user_id, username: row.username, callsign: row.callsign, is_admin: row.is_admin };
  const withdrawn = row.club_id !== null && row.club_level === null;
  const actingAs = row.club_id !== null && row.club_level !== null ? { club_id: row.club_id, callsign: row.club_callsign!, level: row.club_level } : null;
  const sealed = unseal(secret!, row.api_token_sealed);
  if (renew && (row.renew || withdrawn || sealed === null)) {
    return { id, user, csrf: row.csrf, actingAs, ...(await issueToken(db, secret!, id, user, actingAs, settings)) };
  }
  return { id, user, csrf: row.csrf, actingAs, apiToken: sealed ?? '', apiTokenExpiresAt: row.token_expires_at ?? new Date(0) };
}

/** The session now acts for `acting` (null: the user's own account), with a new token to match. */
export async function actAs(db: pg.Pool, secret: string, session: Session, acting: ActingAs | null, settings: SessionSettings): Promise<Session> {
  return { ...session, actingAs: acting, ...(await issueToken(db, secret, session.id, session.user, acting, settings)) };
}

/** Ends one session; its token goes with it (and the live sockets opened with that: sql/014). */
export async function endSession(db: pg.Pool, id: number): Promise<void> {
  await db.query('DELETE FROM app_sessions WHERE id = $1', [id]);
}
