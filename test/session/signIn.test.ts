import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { AppClient, PASSWORD, userWithPassword } from './helpers.js';

t.test('sign-in, the session, sign-out', async (t) => {
  const server = await startTestServer(t, { config: { trust_proxy: true } });
  const db = server.db.pool;
  const ann = await userWithPassword(db, { callsign: 'DL1ANN' });

  t.test('the right password: the session body and an HttpOnly, SameSite=Strict cookie', async (t) => {
    const app = new AppClient(server);
    const res = await app.signIn(ann.username);
    t.equal(res.status, 200);
    t.strictSame(res.body.user, { id: ann.userId, username: ann.username, callsign: 'DL1ANN', is_admin: false });
    t.match(res.body, { csrf: /^[\w-]{43}$/, api_token: /^wl2_[0-9a-f]{40}$/, acting_as: null, clubs: [] });
    t.ok(Date.parse(res.body.api_token_expires_at) > Date.now());
    t.match(app.setCookie, /^logbook_session=[\w-]{43}; path=\/; expires=.*; samesite=strict; httponly$/);
    t.notOk(/secure/i.test(app.setCookie!), 'not Secure over plain HTTP');
    t.equal(res.headers.get('access-control-allow-origin'), null, 'never CORS-enabled');
    t.equal(res.headers.get('cache-control'), 'no-store');
    const { rows } = await db.query('SELECT id_hash, csrf FROM app_sessions WHERE user_id = $1', [ann.userId]);
    t.equal(rows.length, 1);
    t.not(rows[0].id_hash, app.cookie!.split('=')[1], 'only a hash of the cookie is stored');
    const again = await app.call('GET', '/app/session', { csrf: false });
    t.equal(again.status, 200);
    t.equal(again.body.api_token, res.body.api_token, 'after a reload the app gets the same token back');
    t.equal(again.body.csrf, res.body.csrf);
  });

  t.test('behind HTTPS (a trusted proxy) the cookie is Secure', async (t) => {
    const app = new AppClient(server);
    await app.call('POST', '/app/session', { json: { username: ann.username, password: PASSWORD }, headers: { 'x-forwarded-proto': 'https' } });
    t.match(app.setCookie, /; secure; httponly$/);
  });

  t.test('a wrong password and an unknown user get the same answer', async (t) => {
    const app = new AppClient(server);
    const wrong = await app.signIn(ann.username, 'not the password');
    const unknown = await app.signIn('nobody-here', PASSWORD);
    for (const res of [wrong, unknown]) {
      t.equal(res.status, 401);
      t.strictSame(res.body, { error: { code: 'invalid_credentials', message: 'Wrong username or password.', details: {} } });
      t.notOk(res.headers.get('set-cookie'));
    }
    const noPassword = await app.call('POST', '/app/session', { json: { username: ann.username } });
    t.equal(noPassword.status, 400);
    t.equal(noPassword.body.error.code, 'validation_error');
  });

  t.test('a sign-in from another origin is refused', async (t) => {
    const app = new AppClient(server);
    const res = await app.call('POST', '/app/session', { json: { username: ann.username, password: PASSWORD }, headers: { origin: 'https://evil.example' } });
    t.equal(res.status, 403);
    t.equal(res.body.error.code, 'cross_origin');
    t.equal(app.cookie, null);
    const same = await app.call('POST', '/app/session', { json: { username: ann.username, password: PASSWORD }, headers: { origin: server.url } });
    t.equal(same.status, 200, 'the own origin is fine');
    const first = app.cookie;
    await app.signIn(ann.username);
    app.cookie = first;
    t.equal((await app.call('GET', '/app/session')).status, 401, 'signing in again ends the session the browser held');
  });

  t.test('every call but the session ones needs the X-CSRF-Token header', async (t) => {
    const app = new AppClient(server);
    await app.signIn(ann.username);
    for (const [method, path] of [['GET', '/app/tokens'], ['GET', '/app/keys'], ['GET', '/app/scopes'], ['DELETE', '/app/session'], ['POST', '/app/tokens']] as const) {
      const missing = await app.call(method, path, { csrf: false, json: method === 'POST' ? {} : undefined });
      t.equal(missing.status, 403, `${method} ${path} without the header`);
      t.equal(missing.body.error.code, 'csrf');
      const wrong = await app.call(method, path, { csrf: false, headers: { 'x-csrf-token': 'x'.repeat(43) } });
      t.equal(wrong.status, 403, `${method} ${path} with a wrong one`);
    }
    t.equal((await app.call('GET', '/app/tokens')).status, 200, 'with it');
    t.equal((await app.call('GET', '/app/session', { csrf: false })).status, 200, 'the session itself is read without it');
  });

  t.test('without a session: 401 signed_out', async (t) => {
    const app = new AppClient(server);
    const res = await app.call('GET', '/app/session');
    t.equal(res.status, 401);
    t.equal(res.body.error.code, 'signed_out');
    app.cookie = 'logbook_session=' + 'A'.repeat(43);
    t.equal((await app.call('GET', '/app/tokens')).status, 401);
  });

  t.test('the api_token works on /api/v2 (never the cookie) and dies with sign-out', async (t) => {
    const app = new AppClient(server);
    const token = (await app.signIn(ann.username)).body.api_token;
    const me = await server.request('/api/v2/token', { token });
    t.equal(me.status, 200);
    t.equal(me.body.data.user_id, ann.userId);
    t.notOk(me.body.data.scopes.includes('club:read'), 'no club scopes for a non-administrator');
    t.ok(me.body.data.scopes.includes('qso:write'));
    const byCookie = await server.request('/api/v2/token', { headers: { cookie: app.cookie! } });
    t.equal(byCookie.status, 401, 'a cookie authenticates no API call');
    t.equal((await server.request('/api/check_auth/x', { headers: { cookie: app.cookie! } })).status, 401);
    const listed = await app.call('GET', '/app/tokens');
    t.strictSame(listed.body.tokens, [], 'the session token is not listed');

    const cookie = app.cookie;
    const out = await app.call('DELETE', '/app/session');
    t.equal(out.status, 204);
    t.match(out.headers.get('set-cookie'), /^logbook_session=; path=\/; expires=Thu, 01 Jan 1970/);
    t.equal((await server.request('/api/v2/token', { token })).status, 401, 'its token is gone');
    app.cookie = cookie;
    t.equal((await app.call('GET', '/app/session')).status, 401, 'the old cookie names no session');
    const { rows } = await db.query('SELECT count(*)::int AS n FROM api_tokens WHERE token_hash = encode(sha256($1::bytea), \'hex\')', [token]);
    t.equal(rows[0].n, 0, 'the token row is deleted');
  });

  t.test('a password change ends every session of the user, and their tokens', async (t) => {
    const bob = await userWithPassword(db);
    const one = new AppClient(server);
    const two = new AppClient(server);
    await one.signIn(bob.username);
    const otherToken = (await two.signIn(bob.username)).body.api_token;
    const short = await one.call('POST', '/app/password', { json: { current_password: PASSWORD, new_password: 'short' } });
    t.equal(short.status, 400);
    t.match(short.body.error.message, /at least 10 characters/);
    const wrong = await one.call('POST', '/app/password', { json: { current_password: 'wrong one!', new_password: 'a new long password' } });
    t.equal(wrong.status, 403);
    t.equal(wrong.body.error.code, 'invalid_credentials');
    const changed = await one.call('POST', '/app/password', { json: { current_password: PASSWORD, new_password: 'a new long password' } });
    t.equal(changed.status, 204);
    t.equal((await one.call('GET', '/app/session')).status, 401, 'this session ended');
    t.equal((await two.call('GET', '/app/session')).status, 401, 'and the other one');
    t.equal((await server.request('/api/v2/token', { token: otherToken })).status, 401, 'their api tokens too');
    t.equal((await new AppClient(server).signIn(bob.username)).status, 401, 'the old password is gone');
    t.equal((await new AppClient(server).signIn(bob.username, 'a new long password')).status, 200);
  });
});

t.test('failed sign-ins are throttled per account, and the lockout ends', async (t) => {
  let now = 1_000_000;
  const server = await startTestServer(t, { clock: () => now, config: { sign_in_limits: { account: { requests: 2, window: 300 }, address: { requests: 50, window: 900 } } } });
  const ann = await userWithPassword(server.db.pool);
  const app = new AppClient(server);
  for (let i = 0; i < 2; i++) t.equal((await app.signIn(ann.username, 'guess ' + i)).status, 401);
  const locked = await app.signIn(ann.username);
  t.equal(locked.status, 429, 'even the right password waits');
  t.equal(locked.body.error.code, 'rate_limited');
  t.equal(locked.body.error.message, 'Too many failed sign-ins. Try again in 5 minutes.');
  t.equal(locked.headers.get('retry-after'), '300');
  t.equal((await app.signIn(ann.username.toUpperCase())).status, 429, 'the account name is counted whatever its case');
  const other = await userWithPassword(server.db.pool);
  t.equal((await app.signIn(other.username)).status, 200, 'another account is not locked');
  now += 301;
  t.equal((await app.signIn(ann.username)).status, 200, 'the owner gets in once the window has passed');
});

t.test('failed sign-ins are throttled per address, whatever the account', async (t) => {
  const server = await startTestServer(t, { config: { sign_in_limits: { account: { requests: 50, window: 60 }, address: { requests: 2, window: 60 } } } });
  const ann = await userWithPassword(server.db.pool);
  const app = new AppClient(server);
  t.equal((await app.signIn('someone', 'x')).status, 401);
  t.equal((await app.signIn('someone-else', 'y')).status, 401);
  const res = await app.signIn(ann.username);
  t.equal(res.status, 429);
  t.ok(Number(res.headers.get('retry-after')) > 50);
});

t.test('an idle session ends, and its api_token with it', async (t) => {
  const server = await startTestServer(t, { config: { session_idle_minutes: 0.02 } });
  const ann = await userWithPassword(server.db.pool);
  const app = new AppClient(server);
  const token = (await app.signIn(ann.username)).body.api_token;
  t.equal((await app.call('GET', '/app/session')).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const res = await app.call('GET', '/app/session');
  t.equal(res.status, 401);
  t.equal(res.body.error.code, 'signed_out');
  t.equal((await server.request('/api/v2/token', { token })).status, 401);
  const { rows } = await server.db.pool.query('SELECT count(*)::int AS n FROM app_sessions WHERE user_id = $1', [ann.userId]);
  t.equal(rows[0].n, 0, 'the session row is gone');
});
