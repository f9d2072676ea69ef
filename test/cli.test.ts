import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabase } from './helpers/db.js';
import { logbookBin } from './helpers/bin.js';
import { runCli } from './helpers/cli.js';

t.test('operator command line', async (t) => {
  const db = await testDatabase(t);
  const env = { ...process.env, DATABASE_URL: db.url, LOGBOOK_QUIET: '1' };
  // In this process (test/helpers/cli.ts); `spawned` runs bin/logbook.js for exit statuses and serve.
  const run = (...args: string[]) => runCli(args, env);
  const spawned = (...args: string[]) => spawnSync(process.execPath, [logbookBin, ...args], { env, encoding: 'utf8' });
  const json = async (...args: string[]) => {
    const result = await run(...args, '--json');
    t.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
    const lines = result.stdout.trim().split('\n');
    t.equal(lines.length, 1, 'exactly one JSON object on stdout');
    return JSON.parse(lines[0]!);
  };

  t.same(await json('migrate'), { applied: [] }, 'already migrated');
  const user = await json('user', 'add', '--username', 'alice', '--callsign', 'dl1abc', '--email', 'a@example.org');
  t.type(user.id, 'number');
  const club = await json('user', 'add', '--username', 'club', '--callsign', 'DL0CLB', '--club');
  t.same(await json('club', 'member', 'add', '--club', String(club.id), '--user', String(user.id), '--level', 'officer'), { club_id: club.id, user_id: user.id, level: 9 });
  t.equal((await json('club', 'member', 'add', '--club', String(club.id), '--user', String(user.id), '--level', '6')).level, 6, 'numbers accepted, level changed');
  const station = await json('station', 'add', '--user', String(user.id), '--name', 'Home', '--callsign', 'DL1ABC', '--gridsquare', 'jo62qm');
  const second = await json('station', 'add', '--user', String(user.id), '--name', 'Portable', '--callsign', 'DL1ABC/P', '--active');
  const { rows: stations } = await db.pool.query('SELECT id, active, gridsquare FROM stations WHERE user_id = $1 ORDER BY id', [user.id]);
  t.same(stations.map((s) => [s.id, s.active]), [[station.id, false], [second.id, true]], '--active moves the active flag');
  t.equal(stations[0].gridsquare, 'JO62QM');
  const logbook = await json('logbook', 'add', '--user', String(user.id), '--name', 'Main', '--slug', 'alice-main', '--stations', `${station.id},${second.id}`);
  t.same(logbook, { id: logbook.id, slug: 'alice-main' });

  const token = await json('token', 'create', '--user', String(user.id), '--name', 'gate', '--scopes', 'station:read,qso:write', '--expires', '30');
  t.match(token.token, /^wl2_[0-9a-f]{40}$/);
  const past = await json('token', 'create', '--user', String(user.id), '--name', 'old', '--scopes', 'qso:read', '--expires-at', '2020-01-01T00:00:00Z');
  const clubToken = await json('token', 'create', '--user', String(user.id), '--club', String(club.id), '--name', 'club', '--scopes', 'qso:read');
  const { rows: owners } = await db.pool.query('SELECT user_id, created_by FROM api_tokens WHERE id = $1', [clubToken.id]);
  t.same(owners[0], { user_id: club.id, created_by: user.id }, 'club token owned by the club, acting member recorded');
  const listed = await json('token', 'list', '--user', String(user.id));
  t.equal(listed.tokens.length, 3);
  t.notOk(JSON.stringify(listed).includes(token.token.slice(4)), 'list never shows a value');
  t.ok(listed.tokens.find((x: { id: number; expires_at: string }) => x.id === past.id).expires_at.startsWith('2020-01-01'));
  t.same(await json('token', 'revoke', String(token.id)), { revoked: true });
  t.equal(spawned('token', 'revoke', String(token.id), '--json').status, 1, 'revoking twice fails');
  t.match((await json('key', 'create', '--user', String(user.id), '--ro')).key, /^wl[0-9a-f]{32}$/);
  const { rows: keys } = await db.pool.query('SELECT rights, key_hash FROM api_keys');
  t.same(keys.map((k) => k.rights), ['r']);

  t.test('errors go to stderr with a non-zero status', async (t) => {
    const cases: Array<[string[], number, RegExp]> = [
      [['bogus'], 2, /unknown command/],
      [['user', 'add', '--username', 'x'], 2, /--callsign is required/],
      [['user', 'add', '--username', 'x', '--callsign', 'Y', '--nope'], 2, /Unknown option '--nope'/],
      [['token', 'create', '--user', String(user.id), '--name', 'n', '--scopes', 'qso:fly'], 2, /unknown scope/],
      [['token', 'create', '--user', String(user.id), '--name', 'n', '--scopes', 'qso:read', '--expires', '7'], 2, /--expires must be one of/],
      [['token', 'create', '--user', String(user.id), '--name', 'n', '--scopes', 'qso:read', '--expires-at', 'soon'], 2, /ISO 8601/],
      [['token', 'create', '--user', String(station.id + 1000), '--club', String(club.id), '--name', 'n', '--scopes', 'qso:read'], 1, /not a member/],
      [['club', 'member', 'add', '--club', String(user.id), '--user', String(club.id), '--level', 'officer'], 1, /not a clubstation/],
      [['club', 'member', 'add', '--club', String(club.id), '--user', String(user.id), '--level', 'boss'], 2, /level must be/],
      [['logbook', 'add', '--user', String(club.id), '--name', 'x', '--stations', String(station.id)], 1, /do not belong/],
      [['station', 'add', '--user', 'abc', '--name', 'x', '--callsign', 'Y'], 2, /positive integer/],
      [['token', 'revoke'], 2, /wrong number of arguments/],
    ];
    // Independent of each other, so they run side by side.
    const results = await Promise.all(cases.map(([args]) => run(...args, '--json')));
    cases.forEach(([args, status, message], i) => {
      const result = results[i]!;
      t.equal(result.status, status, args.join(' '));
      t.match(result.stderr, message);
      t.equal(result.stdout, '', 'nothing on stdout');
    });
  });

  t.test('club member remove', async (t) => {
    t.same(await json('club', 'member', 'remove', '--club', String(club.id), '--user', String(user.id)), { removed: true });
    t.equal((await run('club', 'member', 'remove', '--club', String(club.id), '--user', String(user.id))).status, 1);
  });

  t.test('serve: config errors are one line; SIGTERM shuts down cleanly', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'logbook-cli-'));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ worker: { secret: 'short' } }));
    const bad = spawned('serve', '--port', '0', '--config', join(dir, 'bad.json'));
    t.equal(bad.status, 1);
    t.equal(bad.stderr.trim().split('\n').length, 1);
    t.match(bad.stderr, /^config: worker\.secret/);

    const child = spawn(process.execPath, [logbookBin, 'serve', '--port', '0'], { env: { ...env, LOGBOOK_QUIET: '0' } });
    const url = await new Promise<string>((resolve, reject) => {
      let log = '';
      child.stderr.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        const match = /"msg":"listening".*"url":"([^"]+)"/.exec(log);
        if (match) resolve(match[1]!);
      });
      child.once('exit', () => reject(new Error(`serve exited: ${log}`)));
    });
    const res = await fetch(`${url}/api/v2/status`);
    t.equal(res.status, 200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    t.equal(await exited, 0, 'exit status 0 after graceful shutdown');
  });
});
