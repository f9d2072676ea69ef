import { spawnSync } from 'node:child_process';
import t from 'tap';
import { commands } from '../lib/cli/main.js';
import { COMMAND_HELP } from '../lib/cli/help.js';
import { logbookBin } from './helpers/bin.js';
import { runCli } from './helpers/cli.js';

// In this process (test/helpers/cli.ts); `spawned` runs bin/logbook.js, --help as a person starts it.
const env = { ...process.env, LOGBOOK_QUIET: '1' };
const run = (...args: string[]) => runCli(args, env);
const spawned = (...args: string[]) => spawnSync(process.execPath, [logbookBin, ...args], { encoding: 'utf8', env });

t.test('every command and every flag has its help line', async (t) => {
  for (const command of commands) {
    const help = COMMAND_HELP[command.name];
    t.ok(help?.summary, `${command.name}: summary`);
    for (const flag of Object.keys(command.options)) t.ok(help?.flags[flag], `${command.name} --${flag}: described`);
  }
});

t.test('logbook --help, help <command>, <command> --help', async (t) => {
  for (const args of [['--help'], ['help'], ['-h']]) {
    const res = args[0] === '--help' ? spawned(...args) : await run(...args);
    t.equal(res.status, 0, args.join(' '));
    t.match(res.stdout, /^usage: logbook <command>/);
    t.match(res.stdout, /\n {2}import +import an ADIF or ADX file/);
    t.match(res.stdout, /\n {2}club member add +make a user a member/);
  }
  const viaHelp = await run('help', 'import');
  const viaFlag = await run('import', '--help');
  t.equal(viaHelp.status, 0);
  t.equal(viaFlag.status, 0);
  t.equal(viaHelp.stdout, viaFlag.stdout);
  t.match(viaFlag.stdout, /^usage: logbook import FILE/);
  t.match(viaFlag.stdout, /\n {2}--station VALUE +station location id\n/);
  t.match(viaFlag.stdout, /\n {2}--dry-run +check only: count what would be imported, skipped as duplicates and failed\n/);
  const exportHelp = (await run('help', 'export')).stdout;
  t.match(exportHelp, /-o, --output VALUE +write to FILE \(gzip when it ends in \.gz\)/);
  t.match((await run('club', 'member', 'add', '--help')).stdout, /--level VALUE +member \(3\), member_adif \(6\) or officer \(9\)/);
  const unknown = await run('help', 'frobnicate');
  t.equal(unknown.status, 2);
  t.match(unknown.stderr, /unknown command/);
});
