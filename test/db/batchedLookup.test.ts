import t from 'tap';
import { BatchedLookup } from '../../lib/db/batchedLookup.js';
import { QueryScope, runInQueryScope } from '../../lib/db/queryScope.js';
import { lookupTokens, revokeToken, type TokenRecord } from '../../lib/auth/tokens.js';
import { createKey, keyHash, lookupKeys } from '../../lib/auth/keys.js';
import { authenticate } from '../../lib/http/v2/principal.js';
import { ApiError } from '../../lib/http/errors.js';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';

/** The answer of an authentication: the token's owner, or the error code. */
const outcome = (attempt: Promise<{ userId: number }>) =>
  attempt.then((principal) => principal.userId, (error: unknown) => (error instanceof ApiError ? error.code : String(error)));

t.test('batched credential look-ups', async (t) => {
  const db = await testDatabase(t);
  const pool = db.pool;
  const good = await createOperator(pool);
  const other = await createOperator(pool);
  const revoked = await createOperator(pool);
  await revokeToken(pool, revoked.tokenId);
  const expired = await createOperator(pool, { expiresAt: new Date(Date.now() - 60_000) });

  /** Token look-ups whose statements are recorded (the keys each was asked for). */
  const counted = () => {
    const statements: string[][] = [];
    const lookup = new BatchedLookup<TokenRecord>((hashes) => {
      statements.push(hashes);
      return lookupTokens(pool, hashes);
    });
    return { statements, lookup };
  };

  t.test('requests arriving while a look-up runs share the next one; each gets its own token\'s answer', async (t) => {
    const { statements, lookup } = counted();
    const tokens = [good.token, other.token, revoked.token, expired.token, 'wl2_0123456789abcdef0123456789abcdef01234567'];
    const expected = [good.userId, other.userId, 'invalid_token', 'token_expired', 'invalid_token'];
    const asked = Array.from({ length: 40 }, (_, i) => tokens[i % tokens.length]!);
    const answers = await Promise.all(asked.map((token) => outcome(authenticate(lookup, token))));
    t.same(answers, asked.map((_, i) => expected[i % tokens.length]));
    t.equal(statements.length, 2, 'the first alone, the 39 others together');
    t.equal(statements[1]!.length, 5, 'each token once in the shared statement');
    const { rows } = await pool.query<{ used: boolean }>('SELECT last_used_at IS NOT NULL AS used FROM api_tokens WHERE id = ANY($1::int[]) ORDER BY id', [[good.tokenId, other.tokenId, revoked.tokenId]]);
    t.same(rows.map((row) => row.used), [true, true, false], 'valid tokens marked used, the revoked one not');
  });

  t.test('a token revoked while a look-up runs is refused to the requests asked after the revocation', async (t) => {
    const target = await createOperator(pool);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    const lookup = new BatchedLookup<TokenRecord>(async (hashes) => {
      const found = await lookupTokens(pool, hashes);
      if (first) {
        first = false;
        await held; // the first statement has run; its answer is held back
      }
      return found;
    });
    const before = outcome(authenticate(lookup, target.token));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await revokeToken(pool, target.tokenId);
    const after = outcome(authenticate(lookup, target.token));
    release();
    t.equal(await before, target.userId, 'asked before the revocation: valid');
    t.equal(await after, 'invalid_token', 'asked after it, while the earlier look-up was still running: refused');
  });

  t.test('a look-up asked from an abandoned request still answers the others', async (t) => {
    const { lookup } = counted();
    const gone = new QueryScope();
    gone.abandoned = true;
    await t.rejects(runInQueryScope(gone, () => pool.query('SELECT 1')), 'the abandoned scope refuses connections');
    const answers = await runInQueryScope(gone, () => Promise.all([good.token, other.token].map((token) => outcome(authenticate(lookup, token)))));
    t.same(answers, [good.userId, other.userId]);
  });

  t.test('a failed statement fails its callers and no later one', async (t) => {
    let fail = true;
    const lookup = new BatchedLookup<TokenRecord>(async (hashes) => {
      if (fail) throw new Error('connection lost');
      return lookupTokens(pool, hashes);
    });
    const failed = await Promise.all([good.token, other.token].map((token) => outcome(authenticate(lookup, token))));
    t.same(failed, ['Error: connection lost', 'Error: connection lost']);
    fail = false;
    t.equal(await outcome(authenticate(lookup, good.token)), good.userId);
  });

  t.test('v1 keys: answered by hash, unknown and malformed keys are no key', async (t) => {
    const { key } = await createKey(pool, good.userId, 'rw');
    const lookup = new BatchedLookup((hashes) => lookupKeys(pool, hashes));
    const [known, unknown] = await Promise.all([lookup.get(keyHash(key)!), lookup.get(keyHash('wl0000')!)]);
    t.match(known, { userId: good.userId, rights: 'rw', stations: [{ id: good.stationId, userId: good.userId }] });
    t.equal(unknown, undefined);
    t.equal(keyHash(''), null);
    t.equal(keyHash('x'.repeat(201)), null);
    t.equal(keyHash(42), null);
  });
});
