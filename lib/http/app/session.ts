import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Config } from '../../config.js';
import type { Services } from '../../services.js';
import { membershipsOf, type Membership } from '../../accounts/clubs.js';
import { loadSession, type ActingAs, type Session, type SessionSettings } from '../../auth/sessions.js';
import type { AppUser } from '../../accounts/users.js';
import { ApiError } from '../errors.js';

/** The browser app's own endpoints: cookie-authenticated, CSRF-checked, never CORS-enabled. */
export const APP_PREFIX = '/app/';
export const SESSION_COOKIE = 'logbook_session';
export const CSRF_HEADER = 'x-csrf-token';

export function sessionSettings(config: Pick<Config, 'session_idle_minutes' | 'session_max_hours'>): SessionSettings {
  return { idleSeconds: config.session_idle_minutes * 60, absoluteSeconds: config.session_max_hours * 3600 };
}

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Path=/, Secure
 * when the request came over HTTPS (behind trusted proxies: X-Forwarded-Proto, Koa's ctx.secure).
 */
export function setSessionCookie(ctx: Context, secret: string | null, expires?: Date): void {
  ctx.cookies.set(SESSION_COOKIE, secret, { httpOnly: true, sameSite: 'strict', path: '/', secure: ctx.secure, overwrite: true, expires });
}

/**
 * A request another origin's page made (`Origin` names another origin than this server's, as the
 * client reached it: behind trusted proxies, their X-Forwarded-Proto and -Host) is refused outright.
 */
export function refuseCrossOrigin(ctx: Context): void {
  const origin = ctx.get('origin');
  if ((origin && origin !== `${ctx.protocol}://${ctx.host}`) || ctx.get('sec-fetch-site') === 'cross-site') {
    throw new ApiError(403, 'cross_origin', 'Requests from another site are refused here.');
  }
}

function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The request's live session, else 401 `signed_out` (and the cookie cleared). With `csrf`, the
 * `X-CSRF-Token` header must repeat the session's csrf value, else 403 `csrf`: a page of another
 * site cannot set that header, nor read the value.
 */
export async function requireSession(ctx: Context, services: Services, options: { csrf: boolean; renew?: boolean }): Promise<Session> {
  const session = await loadSession(services.db, ctx.cookies.get(SESSION_COOKIE), sessionSettings(services.config), options.renew ?? false);
  if (!session) {
    setSessionCookie(ctx, null);
    throw new ApiError(401, 'signed_out', 'You are signed out. Sign in again.');
  }
  if (options.csrf && !sameSecret(ctx.get(CSRF_HEADER), session.csrf)) {
    throw new ApiError(403, 'csrf', 'The X-CSRF-Token header is missing or does not match this session.');
  }
  return session;
}

export interface SessionBody {
  user: AppUser;
  csrf: string;
  api_token: string;
  api_token_expires_at: Date;
  acting_as: ActingAs | null;
  clubs: Membership[];
}

/** What the app knows of its session (docs/app-session.md). */
export async function sessionBody(services: Services, session: Session): Promise<SessionBody> {
  return {
    user: session.user,
    csrf: session.csrf,
    api_token: session.apiToken,
    api_token_expires_at: session.apiTokenExpiresAt,
    acting_as: session.actingAs,
    clubs: await membershipsOf(services.db, session.user.id),
  };
}
