import { claimOwner } from '../../db/queryScope.js';
import type { Context } from 'koa';
import { keyHash, type V1Key } from '../../auth/keys.js';
import { PRE_AUTH_BUCKET } from '../../ratelimit/types.js';
import type { Services } from '../../services.js';
import { clubStanding } from '../../accounts/clubMembers.js';
import { clientAddress } from '../clientAddress.js';
import type { V1Failure, V1Request } from './call.js';
import { v1RateLimited } from './rateLimit.js';

/** The acting member of a club key (owner ≠ creator). */
export interface KeyClubMember {
  level: number;
  callsign: string;
}

/** A valid v1 key: `userId` owns the data (the club for club keys). */
export interface KeyHolder extends V1Key {
  club: KeyClubMember | null;
}

/** Whether every one of `ids` is a station location of the key's owner: read with the key, no round trip of its own. */
export function ownsStations(key: V1Key, ids: readonly number[]): boolean {
  return ids.every((id) => key.stations.some((station) => station.id === id));
}

/** The holder of `presented`, or null (unknown, disabled, or a club key whose creator left the club). */
async function holderOf(services: Services, presented: unknown): Promise<KeyHolder | null> {
  const hash = keyHash(presented);
  const key = hash === null ? undefined : await services.credentials.keys.get(hash);
  if (!key) return null;
  let club: KeyClubMember | null = null;
  if (key.userId !== key.createdBy) {
    // The creator's standing in the club that owns the key (officer for an instance administrator).
    club = await clubStanding(services.db, key.userId, key.createdBy);
    if (!club) return null;
  }
  return { ...key, club };
}

/**
 * Judges a presented key. A failure counts in the pre-authentication bucket of the client
 * address (the attempt is recorded first and refunded on success, so concurrent guesses cannot
 * all slip under the limit); a full bucket answers 429 before the key is looked up. Nothing
 * presented is no attempt and counts nothing.
 */
async function judgeKey(ctx: Context, services: Services, presented: unknown): Promise<KeyHolder | null> {
  if (presented === undefined || presented === null || presented === '') return null;
  const { decision, refund } = await services.rateLimiter.attempt(PRE_AUTH_BUCKET, clientAddress(ctx, services.config));
  if (!decision.allowed) throw v1RateLimited(services, PRE_AUTH_BUCKET, decision);
  const holder = await holderOf(services, presented);
  if (!holder) return null;
  await refund();
  ctx.state.keyId = holder.id;
  claimOwner(holder.userId);
  return holder;
}

const verdicts = new WeakMap<Context, { presented: unknown; holder: Promise<KeyHolder | null> }>();

/**
 * The holder of the key a request presents, judged once per request: the router judges a body
 * key the moment the body's reader sees it, and the call's own check reuses that verdict.
 * Records the key id for the request log.
 */
export function authenticateKey(ctx: Context, services: Services, presented: unknown): Promise<KeyHolder | null> {
  const known = verdicts.get(ctx);
  if (known && known.presented === presented) return known.holder;
  const holder = judgeKey(ctx, services, presented);
  verdicts.set(ctx, { presented, holder });
  return holder;
}

/** The key the request presents (see authenticateKey), or null. */
export function authorizeKey(request: V1Request): Promise<KeyHolder | null> {
  return authenticateKey(request.ctx, request.services, request.key);
}

/** The presented key, else the refusal `missing` builds is thrown (built only then: a refusal carries a stack trace). */
export async function requireKey(request: V1Request, missing: () => V1Failure): Promise<KeyHolder> {
  const key = await authorizeKey(request);
  if (!key) throw missing();
  return key;
}

/** A read/write key (SPEC: writes need one): `missing` without a key, `readOnly` for an 'r' key. */
export async function requireWriteKey(request: V1Request, missing: () => V1Failure, readOnly: () => V1Failure): Promise<KeyHolder> {
  const key = await requireKey(request, missing);
  if (key.rights !== 'rw') throw readOnly();
  return key;
}
