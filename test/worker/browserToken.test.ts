import { createHmac } from 'node:crypto';
import t from 'tap';
import { createBrowserToken, verifyBrowserToken } from '../../lib/worker/browserToken.js';
import { browserTokenKey, internalCallKey } from '../../lib/worker/workerKeys.js';

const SECRET = 'golden-secret-for-interoperability-0001';
const NOW = 1_800_000_000;

// Computed outside this project (Python hmac/hashlib): REFERENCE §6's wire format, signed with
// the secret itself as the original does (GOLDEN), and with the key derived from it (opt-in
// worker.derived_keys: GOLDEN_DERIVED, GOLDEN_INTERNAL_KEY).
const CLAIMS_HEX = '7b22757365725f6964223a34322c22746f706963223a2273746174696f6e2e37222c2265787069726573223a313930303030303030307d';
const GOLDEN = `${CLAIMS_HEX}.ee5003fcde8c2766e3776d52521d6aabc550f0a2bf2b69b2592d22fcbdb8d837`;
const GOLDEN_DERIVED = `${CLAIMS_HEX}.3e7166d74922d01685f337aa105338e98a071f3acda18b6f4bd9278c8cc28b2a`;
const GOLDEN_INTERNAL_KEY = 'e75debf33617b30fe9cf538fe692bc707a0bc94f36c4facb77c2c0f426827372';

const signHex = (encoded: string) => createHmac('sha256', SECRET).update(encoded).digest('hex');

t.test('by default the keys are the secret itself, as the original\'s', async (t) => {
  t.equal(browserTokenKey(SECRET, false), SECRET);
  t.equal(internalCallKey(SECRET, false), SECRET);
});

t.test('wire format of the original worker, signed with the secret', async (t) => {
  t.equal(createBrowserToken(SECRET, { userId: 42, topic: 'station.7', ttlSeconds: 100_000_000 }, NOW), GOLDEN);
  t.same(verifyBrowserToken(SECRET, GOLDEN, 'station.7', NOW), {
    ok: true,
    claims: { user_id: 42, topic: 'station.7', expires: 1_900_000_000 },
  });
});

t.test('derived keys (opt-in): two keys, neither of them the secret; tokens of one kind refused by the other', async (t) => {
  const tokenKey = browserTokenKey(SECRET, true);
  t.equal(internalCallKey(SECRET, true), GOLDEN_INTERNAL_KEY);
  t.not(tokenKey.toString('hex'), GOLDEN_INTERNAL_KEY);
  t.equal(createBrowserToken(tokenKey, { userId: 42, topic: 'station.7', ttlSeconds: 100_000_000 }, NOW), GOLDEN_DERIVED);
  t.equal(verifyBrowserToken(tokenKey, GOLDEN_DERIVED, 'station.7', NOW).ok, true);
  t.same(verifyBrowserToken(tokenKey, GOLDEN, 'station.7', NOW), { ok: false, reason: 'bad_signature' }, "the original's token is refused");
  t.same(verifyBrowserToken(SECRET, GOLDEN_DERIVED, 'station.7', NOW), { ok: false, reason: 'bad_signature' });
});

t.test('expiry: valid through the expires second, rejected after', async (t) => {
  const token = createBrowserToken(SECRET, { userId: 1, topic: 'radio.3', ttlSeconds: 60 }, NOW);
  t.equal(verifyBrowserToken(SECRET, token, 'radio.3', NOW + 60).ok, true);
  t.same(verifyBrowserToken(SECRET, token, 'radio.3', NOW + 61), { ok: false, reason: 'expired' });
});

t.test('a token is bound to its topic', async (t) => {
  const token = createBrowserToken(SECRET, { userId: 1, topic: 'station.1', ttlSeconds: 60 }, NOW);
  t.same(verifyBrowserToken(SECRET, token, 'station.2', NOW), { ok: false, reason: 'wrong_topic' });
});

t.test('forgeries are rejected', async (t) => {
  const token = createBrowserToken(SECRET, { userId: 1, topic: 'station.1', ttlSeconds: 60 }, NOW);
  const [encoded, signature] = token.split('.') as [string, string];

  t.same(verifyBrowserToken('another-secret-of-sufficient-length!!', token, 'station.1', NOW), { ok: false, reason: 'bad_signature' });

  const flipped = signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0');
  t.same(verifyBrowserToken(SECRET, `${encoded}.${flipped}`, 'station.1', NOW), { ok: false, reason: 'bad_signature' });
  t.same(verifyBrowserToken(SECRET, `${encoded}.${signature.slice(0, 10)}`, 'station.1', NOW), { ok: false, reason: 'bad_signature' });
  t.same(verifyBrowserToken(SECRET, `${encoded}.${signature.toUpperCase()}`, 'station.1', NOW), { ok: false, reason: 'bad_signature' });

  // Claims changed (other user, later expiry) but the old signature kept.
  const tampered = Buffer.from(JSON.stringify({ user_id: 2, topic: 'station.1', expires: NOW + 999_999 })).toString('hex');
  t.same(verifyBrowserToken(SECRET, `${tampered}.${signature}`, 'station.1', NOW), { ok: false, reason: 'bad_signature' });

  for (const junk of ['', '.', 'abc', `.${signature}`, `${encoded}.`, 'not-hex.deadbeef']) {
    t.equal(verifyBrowserToken(SECRET, junk, 'station.1', NOW).ok, false, `junk ${JSON.stringify(junk)}`);
  }
});

t.test('a correctly signed but malformed payload is still rejected', async (t) => {
  for (const claims of ['not json', '{"user_id":"1","topic":"station.1","expires":1900000000}', '{"user_id":1,"topic":"station.1"}', 'null']) {
    const encoded = Buffer.from(claims).toString('hex');
    t.same(verifyBrowserToken(SECRET, `${encoded}.${signHex(encoded)}`, 'station.1', NOW), { ok: false, reason: 'malformed' }, claims);
  }
  const oddHex = 'abc';
  t.same(verifyBrowserToken(SECRET, `${oddHex}.${signHex(oddHex)}`, 'station.1', NOW), { ok: false, reason: 'malformed' });
});

t.test('creation refuses nonsense', async (t) => {
  t.throws(() => createBrowserToken(SECRET, { userId: -1, topic: 'x', ttlSeconds: 60 }));
  t.throws(() => createBrowserToken(SECRET, { userId: 1, topic: 'x', ttlSeconds: 0 }));
});
