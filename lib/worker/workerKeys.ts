/**
 * The one configured worker secret (`worker.secret` / WORKER_SECRET, shared by the application
 * and its workers) is never used as a key itself. Two keys are derived from it, one per job:
 *
 * - the browser-token key signs and verifies browser tokens (lib/worker/browserToken.ts);
 * - the internal-call key is what the application sends in `X-Worker-Secret`.
 *
 * Each is HMAC-SHA256(secret, a label of its own). HMAC is a pseudo-random function of its key,
 * so one derived key says nothing about the other or about the secret: the internal-call key,
 * which travels on every internal request (plain HTTP on the internal network), cannot mint
 * browser tokens, and a browser-token key cannot authenticate internal calls. Both sides derive
 * the same keys, so the configuration stays one secret.
 */
import { createHmac } from 'node:crypto';

const BROWSER_TOKEN_LABEL = 'logbook live-update worker: browser-token signing key v1';
const INTERNAL_CALL_LABEL = 'logbook live-update worker: internal-call key v1';

function derive(secret: string, label: string): Buffer {
  return createHmac('sha256', secret).update(label, 'utf8').digest();
}

/** A process holds one secret; deriving once keeps verifying a token at one HMAC. */
let cached: { secret: string; browserToken: Buffer; internalCall: string } | undefined;

function keysFor(secret: string): NonNullable<typeof cached> {
  if (cached?.secret !== secret) {
    cached = { secret, browserToken: derive(secret, BROWSER_TOKEN_LABEL), internalCall: derive(secret, INTERNAL_CALL_LABEL).toString('hex') };
  }
  return cached;
}

/** The key browser tokens are signed with. */
export function browserTokenKey(secret: string): Buffer {
  return keysFor(secret).browserToken;
}

/** The value of `X-Worker-Secret` on the application's calls to a worker (64 hex characters). */
export function internalCallKey(secret: string): string {
  return keysFor(secret).internalCall;
}
