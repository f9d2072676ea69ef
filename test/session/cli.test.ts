import { spawnSync } from 'node:child_process';
import t from 'tap';
import { verifyPassword } from '../../lib/auth/passwords.js';
import { startSession } from '../../lib/auth/sessions.js';
import { testDatabase } from '../helpers/db.js';
import { logbookBin } from '../helpers/bin.js';
import { runCli } from '../helpers/cli.js';

t.test('passwords from the command line, read from standard input', async (t) => {
  const db = await testDatabase(t);
  const env = { ...process.env, DATABASE_URL: db.url, LOGBOOK_QUIET: '1' };
  // In this process (test/helpers/cli.ts); `spawned` reads the password from a real process's stdin.
  const run = (input: string, ...args: string[]) => runCli(args, env, input);
  const spawned = (input: string, ...args: string[]) => spawnSync(process.execPath, [logbookBin, ...args], { env, encoding: 'utf8', input });
  const hashOf = async (id: number) => (await db.pool.query('SELECT password_hash FROM users WHERE id = $1', [id])).rows[0].password_hash as string | null;

  const added = spawned('first password!\n', 'user', 'add', '--username', 'carol', '--callsign', 'DL1CAR', '--password-stdin', '--json');
  t.equal(added.status, 0, added.stderr);
  const id = JSON.parse(added.stdout).id as number;
  const stored = await hashOf(id);
  t.match(stored, /^\$scrypt\$ln=15,r=8,p=1\$/);
  t.ok(await verifyPassword('first password!', stored), 'the line ending is not part of the password');

  const short = await run('short\n', 'user', 'set-password', '--user', String(id));
  t.equal(short.status, 2);
  t.match(short.stderr, /The password must be at least 10 characters long\./);
  const empty = await run('', 'user', 'set-password', '--user', String(id));
  t.equal(empty.status, 2);
  t.match(empty.stderr, /The password must not be empty\./);
  t.equal(await hashOf(id), stored, 'a refused password changes nothing');

  await startSession(db.pool, { id, username: 'carol', callsign: 'DL1CAR', is_admin: false }, { idleSeconds: 600, absoluteSeconds: 3600 });
  const set = await run('second password', 'user', 'set-password', '--user', String(id), '--json');
  t.equal(set.status, 0, set.stderr);
  t.same(JSON.parse(set.stdout), { user_id: id, sessions_ended: true });
  t.ok(await verifyPassword('second password', await hashOf(id)));
  t.equal((await db.pool.query('SELECT count(*)::int AS n FROM app_sessions WHERE user_id = $1', [id])).rows[0].n, 0, 'their sessions ended');
  t.not((await run('second password', 'user', 'set-password', '--user', '999999')).status, 0, 'an unknown user is an error');
  t.equal((await run('x', 'user', 'add', '--username', 'club', '--callsign', 'DL0C', '--club', '--password-stdin')).status, 2, 'clubstations do not sign in');
  t.notOk(/first password|second password/.test(added.stdout + added.stderr + set.stdout + set.stderr), 'never echoed');
});
