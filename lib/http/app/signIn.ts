import { findSignInUser, type AppUser } from '../../accounts/users.js';
import { verifyPassword } from '../../auth/passwords.js';
import { SIGN_IN_ACCOUNT_BUCKET, SIGN_IN_ADDRESS_BUCKET } from '../../ratelimit/types.js';
import type { Services } from '../../services.js';
import { ApiError } from '../errors.js';

export const WRONG_CREDENTIALS = 'Wrong username or password.';

function throttled(services: Services, bucket: string, retryAfter: number): ApiError {
  services.metrics.rateLimited.inc({ bucket });
  const wait = retryAfter < 120 ? `${retryAfter} seconds` : `${Math.ceil(retryAfter / 60)} minutes`;
  return new ApiError(429, 'rate_limited', `Too many failed sign-ins. Try again in ${wait}.`, { retry_after: retryAfter }, {
    'Retry-After': String(retryAfter),
  });
}

/**
 * Counts a failed password check against the client address and the account name (the
 * sign_in_limits), recorded before the check so that concurrent guesses cannot all slip under
 * the limits, and taken back when the password is right. A full bucket answers 429 before any
 * hashing. Returns `confirm`, to be called once the password proved right.
 */
export async function chargeAttempt(services: Services, address: string, username: string): Promise<() => Promise<void>> {
  const limiter = services.signInLimiter;
  const byAddress = await limiter.attempt(SIGN_IN_ADDRESS_BUCKET, address);
  if (!byAddress.decision.allowed) throw throttled(services, SIGN_IN_ADDRESS_BUCKET, byAddress.decision.retryAfter);
  const byAccount = await limiter.attempt(SIGN_IN_ACCOUNT_BUCKET, username.toLowerCase());
  if (!byAccount.decision.allowed) {
    await byAddress.refund();
    throw throttled(services, SIGN_IN_ACCOUNT_BUCKET, byAccount.decision.retryAfter);
  }
  return async () => {
    await Promise.all([byAddress.refund(), byAccount.refund()]);
  };
}

/**
 * The user whose username and password these are, else 401 `invalid_credentials` with one
 * message whichever was wrong, after the same scrypt work (an unknown user's check runs
 * against a dummy hash). Logged without the password.
 */
export async function signIn(services: Services, address: string, username: string, password: string): Promise<AppUser> {
  const confirm = await chargeAttempt(services, address, username);
  const user = await findSignInUser(services.db, username);
  if (!(await verifyPassword(password, user?.password_hash ?? null)) || !user) {
    services.logger.warn('sign-in refused', { username, address, reason: !user ? 'no such user' : user.password_hash ? 'wrong password' : 'no password set' });
    throw new ApiError(401, 'invalid_credentials', WRONG_CREDENTIALS);
  }
  await confirm();
  services.logger.info('signed in', { user_id: user.id, username, address });
  return { id: user.id, username: user.username, callsign: user.callsign, is_admin: user.is_admin };
}
