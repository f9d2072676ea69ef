/**
 * The keys the one worker secret (`worker.secret` / WORKER_SECRET, shared by the application and
 * its workers) gives: the value of `X-Worker-Secret` on internal calls and the key browser tokens
 * are signed with.
 *
 * By default both are the secret itself, as the original application and worker use it
 * (REFERENCE.md §6), so either pairs with ours. With `worker.derived_keys: true` each is
 * HMAC-SHA256(secret, a label of its own) instead: the internal-call key, which travels on every
 * internal request, can then not mint browser tokens. Both sides must take the same setting.
 */
import { createHmac } from 'node:crypto';

const BROWSER_TOKEN_LABEL = 'logbook live-update worker: browser-token signing key v1';
const INTERNAL_CALL_LABEL = 'logbook live-update worker: internal-call key v1';

/** The HMAC key browser tokens are signed and verified with. */
export function browserTokenKey(secret: string, derived: boolean): string | Buffer {
  return derived ? createHmac('sha256', secret).update(BROWSER_TOKEN_LABEL, 'utf8').digest() : secret;
}

/** The value of `X-Worker-Secret` on the application's calls to a worker. */
export function internalCallKey(secret: string, derived: boolean): string {
  return derived ? createHmac('sha256', secret).update(INTERNAL_CALL_LABEL, 'utf8').digest('hex') : secret;
}
