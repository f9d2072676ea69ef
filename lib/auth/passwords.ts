import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing: scrypt (node:crypto) with N = 2^15, r = 8, p = 1, a 16-byte random salt and a
 * 32-byte result, stored as a self-describing PHC-style string
 * `$scrypt$ln=15,r=8,p=1$<salt base64>$<hash base64>`. Verification reads the parameters from
 * the string, so stronger parameters later leave older hashes verifiable.
 */
export const PASSWORD_PARAMS = { ln: 15, r: 8, p: 1, saltBytes: 16, keyBytes: 32 } as const;

/** New passwords: at least this many characters (the app and the command line say so). */
export const MIN_PASSWORD_LENGTH = 10;
/** Longer input is refused before hashing: what one attempt costs stays bounded. */
export const MAX_PASSWORD_LENGTH = 1024;

interface Params {
  ln: number;
  r: number;
  p: number;
}

function derive(password: string, salt: Buffer, keyBytes: number, params: Params): Promise<Buffer> {
  // scrypt needs 128 · N · r bytes; Node's default ceiling (32 MiB) is exactly that at N = 2^15, r = 8.
  const options: ScryptOptions = { N: 2 ** params.ln, r: params.r, p: params.p, maxmem: 256 * 2 ** params.ln * params.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyBytes, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(PASSWORD_PARAMS.saltBytes);
  const key = await derive(password, salt, PASSWORD_PARAMS.keyBytes, PASSWORD_PARAMS);
  const { ln, r, p } = PASSWORD_PARAMS;
  return `$scrypt$ln=${ln},r=${r},p=${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

const STORED = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

/** Whether `password` matches the stored string; false (never an error) for a malformed or null one. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const match = stored === null ? null : STORED.exec(stored);
  if (!match) {
    await dummyVerify(password);
    return false;
  }
  const [ln, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (ln < 10 || ln > 20 || r < 1 || p < 1) return false;
  const expected = Buffer.from(match[5]!, 'base64');
  const key = await derive(password, Buffer.from(match[4]!, 'base64'), expected.length, { ln, r, p });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** The hash of a random password nobody kept, with today's parameters. */
const DUMMY_HASH = '$scrypt$ln=15,r=8,p=1$lo/dJfBFel9VOIrhLucnUQ==$2vaHFDgx3v84KHAXJFaMQucriX3xFJbiMffrqiKlqL0=';

/**
 * Spends what checking a real password spends, for a user that does not exist or has no
 * password: the answer's timing must not tell which of the two was wrong.
 */
async function dummyVerify(password: string): Promise<void> {
  await verifyPassword(password, DUMMY_HASH);
}

/** Why a new password is refused, in a sentence, or null when it is acceptable. */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== 'string' || password.length === 0) return 'The password must not be empty.';
  if ([...password].length < MIN_PASSWORD_LENGTH) return `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `The password may be at most ${MAX_PASSWORD_LENGTH} characters long.`;
  return null;
}
