import t from 'tap';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabase } from './helpers/db.js';
import { logbookBin } from './helpers/bin.js';
import { runCli } from './helpers/cli.js';

// Issue 46, "the command line as a tool": what a person meets when a command goes wrong, is
// piped, is run in the wrong folder, or is started and stopped by hand.

type Run = { status: number | null; stdout: string; stderr: string };

t.test('logbook as a tool', async (t) => {
  const db = await testDatabase(t);
  const env = { ...process.env, DATABASE_URL: db.url, LOGBOOK_QUIET: '1' };
  // In this process (test/helpers/cli.ts); `spawned` runs bin/logbook.js where the process matters.
  const run = (args: string[]): Promise<Run> => runCli(args, env);
  const spawned = (args: string[], extraEnv: NodeJS.ProcessEnv = env) =>
    new Promise<Run>((resolve) => {
      execFile(process.execPath, [logbookBin, ...args], { env: extraEnv, encoding: 'utf8' }, (error, stdout, stderr) =>
        resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }));
    });

  // Awaited: the instance must still have no user when serve starts.
  await t.test('serve: the address and first steps on stdout; Ctrl-C to the process group ends with one info line', async (t) => {
    const child = spawn(process.execPath, [logbookBin, 'serve', '--port', '0', '--workers', '2'], { env: { ...env, LOGBOOK_QUIET: '0' }, detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    while (!/first steps/.test(stdout) && child.exitCode === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const url = /logbook is running: open (http:\/\/\S+)\//.exec(stdout)?.[1];
    t.ok(url, `the address to open: ${stdout}${stderr}`);
    t.match(stdout, /npx logbook user add .*--password-stdin.*\n.*npx logbook station add .*\n.*sign in at http/, 'user add with a password, station add, sign in');
    t.equal((await fetch(`${url}/api/v2/status`)).status, 200, 'the address answers');
    const before = stderr.length;
    process.kill(-child.pid!, 'SIGINT'); // what Ctrl-C in a terminal does: the whole group
    t.equal(await exited, 0);
    // The status request's own log line may come late; everything else is what the stop says.
    const after = stderr.slice(before).trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { level: string; msg: string });
    t.same(after.filter((line) => line.msg !== 'request').map((line) => [line.level, line.msg]), [['info', 'shutting down']], 'one info line, no errors');
  });

  const user = JSON.parse((await run(['user', 'add', '--username', 'alice', '--callsign', 'DL1ABC', '--json'])).stdout) as { id: number };
  const station = JSON.parse((await run(['station', 'add', '--user', String(user.id), '--name', 'Home', '--callsign', 'DL1ABC', '--gridsquare', 'JO62', '--json'])).stdout) as { id: number };

  t.test('an unknown id or a taken name answers one sentence, exit 1', async (t) => {
    const missing = 987654;
    const cases: Array<[string[], string]> = [
      [['user', 'add', '--username', 'alice', '--callsign', 'DL2ABC'], 'logbook user add: username alice is taken\n'],
      [['station', 'add', '--user', String(missing), '--name', 'x', '--callsign', 'DL1ABC'], `logbook station add: no user with id ${missing}\n`],
      [['token', 'create', '--user', String(missing), '--name', 'x', '--scopes', 'qso:read'], `logbook token create: no user with id ${missing}\n`],
      [['key', 'create', '--user', String(missing)], `logbook key create: no user with id ${missing}\n`],
      [['token', 'list', '--user', String(missing)], `logbook token list: no user with id ${missing}\n`],
      [['station', 'list', '--user', String(missing)], `logbook station list: no user with id ${missing}\n`],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args)));
    cases.forEach(([args, sentence], i) => {
      t.same(results[i], { status: 1, stdout: '', stderr: sentence }, args.join(' '));
    });
  });

  t.test('user list and station list: a table, or one JSON object', async (t) => {
    const users = await run(['user', 'list', '--json']);
    t.equal(users.status, 0);
    t.match(JSON.parse(users.stdout), { users: [{ id: user.id, username: 'alice', callsign: 'DL1ABC', is_club: false, is_admin: false }] });
    t.equal(users.stdout.trim().split('\n').length, 1);
    const table = await run(['user', 'list']);
    t.match(table.stdout, new RegExp(`^ID\\s+USERNAME\\s+CALLSIGN\\s+EMAIL\\s+KIND\\n${user.id}\\s+alice\\s+DL1ABC\\n$`));
    const stations = await run(['station', 'list', '--user', String(user.id), '--json']);
    t.same(JSON.parse(stations.stdout), { stations: [{ id: station.id, name: 'Home', callsign: 'DL1ABC', gridsquare: 'JO62', active: true }] });
    t.match((await run(['station', 'list', '--user', String(user.id)])).stdout, new RegExp(`^ID\\s+NAME\\s+CALLSIGN\\s+GRID\\s+ACTIVE\\n${station.id}\\s+Home\\s+DL1ABC\\s+JO62\\s+yes\\n$`));
  });

  t.test('export into a pipe whose reader stops early ends quietly with status 0', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'logbook-proto-'));
    const records = Array.from({ length: 4000 }, (_, i) => `<CALL:6>G${String(i).padStart(4, '0')}X<QSO_DATE:8>20240101<TIME_ON:6>${String(Math.floor(i / 60) % 24).padStart(2, '0')}${String(i % 60).padStart(2, '0')}00<BAND:3>20m<MODE:3>SSB<EOR>\n`);
    writeFileSync(join(dir, 'log.adi'), `<EOH>\n${records.join('')}`);
    t.equal((await run(['import', join(dir, 'log.adi'), '--station', String(station.id)])).status, 0);
    const child = spawn(process.execPath, [logbookBin, 'export', '--station', String(station.id)], { env });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Like `head`: read the first piece, then close the pipe while the export still writes.
    child.stdout.once('data', () => child.stdout.destroy());
    t.equal(await exited, 0, stderr);
    t.equal(stderr, '', 'no EPIPE stack, no summary of an export nobody read');
  });

  t.test('no instance here: says which database it creates, and where, before creating it', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'logbook-proto-'));
    writeFileSync(join(dir, 'file'), '');
    // A home that cannot be made (under a file) stops right after the notice: nothing is created.
    const home = join(dir, 'file', 'home');
    const { DATABASE_URL: _unused, ...withoutUrl } = env;
    const result = await spawned(['token', 'list', '--user', '1'], { ...withoutUrl, LOGBOOK_HOME: home });
    t.equal(result.status, 1);
    const [notice, ...rest] = result.stderr.trim().split('\n');
    t.equal(notice, `logbook: no DATABASE_URL and no instance in ${home}: creating a new, empty embedded PostgreSQL database there ` +
      '(set DATABASE_URL, or LOGBOOK_HOME to the folder of an existing instance, to use that one)');
    t.match(rest.join('\n'), /ENOTDIR/, 'then the failure to create it');
    t.notMatch(result.stdout, /no tokens/);
  });
});
