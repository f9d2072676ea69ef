import { scryptSync } from 'node:crypto';
import t from 'tap';
import { hashPassword, passwordProblem, verifyPassword } from '../../lib/auth/passwords.js';
import { loadSession, startSession, type SessionSettings } from '../../lib/auth/sessions.js';
import { buildConfig, ConfigError } from '../../lib/config.js';
import { testDatabase } from '../helpers/db.js';
import { userWithPassword } from './helpers.js';

t.test('password hashing: scrypt N=2^15, r=8, p=1, 16-byte salt, self-describing', async (t) => {
  const stored = await hashPassword('a long enough password');
  const match = /^\$scrypt\$ln=15,r=8,p=1\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored);
  t.ok(match, stored);
  t.equal(Buffer.from(match![1]!, 'base64').length, 16, 'salt of 16 bytes');
  t.equal(Buffer.from(match![2]!, 'base64').length, 32, 'key of 32 bytes');
  t.notOk(stored.includes('a long enough password'));
  t.ok(await verifyPassword('a long enough password', stored));
  t.notOk(await verifyPassword('a long enough passworD', stored));
  t.not(await hashPassword('a long enough password'), stored, 'a fresh salt each time');

  const salt = Buffer.alloc(16, 7);
  const older = `$scrypt$ln=14,r=8,p=1$${salt.toString('base64')}$${scryptSync('x'.repeat(12), salt, 32, { N: 2 ** 14, r: 8, p: 1 }).toString('base64')}`;
  t.ok(await verifyPassword('x'.repeat(12), older), 'the parameters are read from the stored string');
  for (const bad of [null, '', 'plain', '$scrypt$ln=3,r=8,p=1$AAAA$AAAA', '$argon2id$v=19$m=1,t=1,p=1$AAAA$AAAA']) {
    t.equal(await verifyPassword('x'.repeat(12), bad), false, `malformed or weak: ${bad}`);
  }
});

t.test('no stored password costs what a wrong one costs (the timing tells nothing)', async (t) => {
  const stored = await hashPassword('a long enough password');
  const timed = async (hash: string | null) => {
    const start = process.hrtime.bigint();
    t.equal(await verifyPassword('a wrong password', hash), false);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const wrong = await timed(stored);
  const none = await timed(null);
  t.ok(none > wrong * 0.2 && none < wrong * 5, `no password ${none.toFixed(0)} ms, wrong password ${wrong.toFixed(0)} ms`);
});

t.test('new passwords: 10 characters or more, said in a sentence', async (t) => {
  t.equal(passwordProblem(''), 'The password must not be empty.');
  t.equal(passwordProblem(undefined), 'The password must not be empty.');
  t.equal(passwordProblem('123456789'), 'The password must be at least 10 characters long.');
  t.equal(passwordProblem('1234567890'), null);
  t.match(passwordProblem('x'.repeat(1025)), /at most 1024/);
});

t.test('configuration: session times and sign-in limits are validated', async (t) => {
  const config = buildConfig({}, {});
  t.equal(config.session_idle_minutes, 720);
  t.same(config.sign_in_limits, { account: { requests: 5, window: 300 }, address: { requests: 20, window: 900 } });
  t.same(buildConfig({ sign_in_limits: { account: { requests: 2, window: 1 } } }, {}).sign_in_limits.address, { requests: 20, window: 900 });
  t.throws(() => buildConfig({ session_idle_minutes: 0 }, {}), ConfigError);
  t.throws(() => buildConfig({ sign_in_limits: { account: { requests: 0, window: 1 } } }, {}), ConfigError);
});

t.test('session expiry: idle, absolute, and use of the api token counting as activity', async (t) => {
  const db = (await testDatabase(t)).pool;
  const settings: SessionSettings = { idleSeconds: 600, absoluteSeconds: 3600 };
  const user = await userWithPassword(db);
  const appUser = { id: user.userId, username: user.username, callsign: 'X', is_admin: false };
  const start = () => startSession(db, appUser, settings);
  const age = (secret: string, column: string, seconds: number) =>
    db.query(`UPDATE app_sessions SET ${column} = now() - make_interval(secs => $2) WHERE id_hash = encode(sha256($1::bytea), 'hex')`, [secret, seconds]);

  const fresh = await start();
  t.equal((await loadSession(db, fresh.secret, settings, false))?.apiToken, fresh.session.apiToken);
  t.equal(await loadSession(db, 'x'.repeat(43), settings, false), null, 'unknown');
  t.equal(await loadSession(db, undefined, settings, false), null, 'no cookie');

  const idle = await start();
  await age(idle.secret, 'last_seen_at', 601);
  t.equal(await loadSession(db, idle.secret, settings, false), null, 'idle past the limit');
  t.equal((await db.query('SELECT count(*)::int AS n FROM api_tokens WHERE session_id = $1', [idle.session.id])).rows[0].n, 0, 'deleted with its token');

  const used = await start();
  await age(used.secret, 'last_seen_at', 601);
  await db.query('UPDATE api_tokens SET last_used_at = now() WHERE session_id = $1', [used.session.id]);
  t.ok(await loadSession(db, used.secret, settings, false), 'its token was used: not idle');

  const old = await start();
  await db.query(`UPDATE app_sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [old.session.id]);
  t.equal(await loadSession(db, old.secret, settings, false), null, 'past its absolute end, however used');

  const expiry = fresh.session.apiTokenExpiresAt.getTime();
  t.ok(Math.abs(expiry - Date.now() - 600_000) < 30_000, 'the token lives the idle time');
  await db.query(`UPDATE api_tokens SET expires_at = now() + interval '200 seconds' WHERE session_id = $1`, [fresh.session.id]);
  t.equal((await loadSession(db, fresh.secret, settings, false))!.apiToken, fresh.session.apiToken, 'not renewed unless asked');
  const renewed = (await loadSession(db, fresh.secret, settings, true))!;
  t.not(renewed.apiToken, fresh.session.apiToken, 'less than half the idle time left: renewed');
  t.equal((await loadSession(db, fresh.secret, settings, true))!.apiToken, renewed.apiToken, 'then kept');
});
