import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import t from 'tap';
import { parseAdif } from '../../lib/adif/tokenizer.js';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { adifDocument, qso, qsoCount } from './helpers.js';
import { lotwReport } from './downloadFixtures.js';
import { logbookBin } from '../helpers/bin.js';
import { runCli } from '../helpers/cli.js';

t.test('logbook import and export', async (t) => {
  const db = await testDatabase(t);
  const op = await createOperator(db.pool, { callsign: 'DL1CLI' });
  const env = { ...process.env, DATABASE_URL: db.url, LOGBOOK_QUIET: '1' };
  // In this process (test/helpers/cli.ts); `spawned` runs bin/logbook.js for the process's own stdin.
  const run = (args: string[], input?: string | Buffer) => runCli(args, env, input);
  const spawned = (args: string[], input?: string | Buffer) => spawnSync(process.execPath, [logbookBin, ...args], { env, encoding: 'utf8', input });
  const dir = mkdtempSync(join(tmpdir(), 'logbook-cli-'));
  const file = join(dir, 'log.adi');
  writeFileSync(file, adifDocument([
    qso('OH1CLI', '20240301', '1015', '20m', 'CW'),
    qso('OH1CLI', '20240301', '101545', '20m', 'CW'),
    [['CALL', 'OH2CLI']],
  ]));
  const station = String(op.stationId);

  t.test('import: summary as JSON or text, dry run, stdin', async (t) => {
    const dry = await run(['import', file, '--station', station, '--dry-run', '--json']);
    t.equal(dry.status, 0, dry.stderr);
    t.same(JSON.parse(dry.stdout), {
      parsed: 3, imported: 1, confirmed: 0, unchanged: 0, unmatched: 0, ambiguous: 0, skipped: 1, failed: 1, download: null, first_id: null, last_id: null, dry_run: true,
      messages: [
        '1 record skipped as duplicates: already in the log or earlier in this input (first: OH1CLI 2024-03-01 10:15 20m CW)',
        'record 3, line 5: not imported: QSO_DATE is missing; TIME_ON is missing',
      ],
    });
    t.equal(await qsoCount(db.pool, op.stationId), 0);

    const real = await run(['import', file, '--station', station, '--json']);
    t.equal(real.status, 0, real.stderr);
    const summary = JSON.parse(real.stdout);
    t.match(summary, { parsed: 3, imported: 1, skipped: 1, failed: 1, dry_run: false });
    t.equal(summary.first_id, summary.last_id);
    t.equal(real.stderr, '', 'a short import prints no progress line');

    const again = spawned(['import', '-', '--station', station], readFileSync(file, 'utf8'));
    t.equal(again.status, 0, again.stderr);
    t.equal(
      again.stdout,
      `imported 0 of 3 records into station location ${station}; 2 duplicates skipped, 1 records failed\n` +
        '  2 records skipped as duplicates: already in the log or earlier in this input (first: OH1CLI 2024-03-01 10:15 20m CW; OH1CLI 2024-03-01 10:15 20m CW)\n' +
        '  record 3, line 5: not imported: QSO_DATE is missing; TIME_ON is missing\n',
    );
    t.equal(await qsoCount(db.pool, op.stationId), 1);
  });

  t.test('import: records without <EOR> between them are each imported, with a message', async (t) => {
    const lines = join(dir, 'lines.adi');
    writeFileSync(lines, '<EOH>\n<CALL:6>OH3EOR<QSO_DATE:8>20240302<TIME_ON:4>1000<BAND:3>20m<MODE:2>CW\n' +
      '<CALL:6>OH4EOR<QSO_DATE:8>20240302<TIME_ON:4>1001<BAND:3>40m<MODE:2>CW<BAND:3>80m<EOR>\n');
    const own = await createOperator(db.pool, { callsign: 'DL2CLI' });
    const result = await run(['import', lines, '--station', String(own.stationId), '--json']);
    t.equal(result.status, 0, result.stderr);
    const summary = JSON.parse(result.stdout);
    t.match(summary, { parsed: 2, imported: 2, failed: 0 });
    t.same(summary.messages, [
      'record 2, line 3: CALL occurs again before <EOR>: read as the start of a new record',
      "record 2, line 3: field BAND occurs twice in one record: the first value '40m' is kept, '80m' is dropped",
    ]);
    const { rows } = await db.pool.query("SELECT call, band FROM qso WHERE call LIKE 'OH_EOR' ORDER BY call");
    t.same(rows, [{ call: 'OH3EOR', band: '20m' }, { call: 'OH4EOR', band: '40m' }]);
  });

  t.test('import: an input with nothing readable fails with a short escaped message', async (t) => {
    const own = await createOperator(db.pool, { callsign: 'DL3CLI' });
    const binary = join(dir, 'random.bin');
    let state = 12345;
    writeFileSync(binary, Buffer.from(Array.from({ length: 200_000 }, () => (state = (state * 1103515245 + 12345) >>> 0) >>> 24)));
    const empty = join(dir, 'empty.adi');
    writeFileSync(empty, '');
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'just some notes\n');
    for (const [file, message] of [
      [binary, /^logbook import: nothing to import: the input is neither ADIF nor ADX \(it begins with ".*"\)\n$/],
      ['/bin/ls', /^logbook import: nothing to import: the input is neither ADIF nor ADX \(it begins with "\\x7fELF.*"\)\n$/],
      [empty, /^logbook import: nothing to import: the input is empty\n$/],
      [text, /^logbook import: nothing to import: the input is neither ADIF nor ADX \(it begins with "just some notes\\n"\)\n$/],
    ] as const) {
      for (const extra of [[], ['--dry-run']]) {
        const result = await run(['import', file, '--station', String(own.stationId), ...extra]);
        t.equal(result.status, 1, `${file} ${extra.join(' ')}`);
        t.match(result.stderr, message);
        t.ok(result.stderr.length < 200, `a short message (${result.stderr.length} characters)`);
        t.notMatch(result.stderr.slice(0, -1), /[\x00-\x1f\x7f-\x9f\ufffd]/, 'no raw control or invalid bytes');
        t.equal(result.stdout, '');
      }
    }
    t.equal(await qsoCount(db.pool, own.stationId), 0);
    const headerOnly = join(dir, 'header.adi');
    writeFileSync(headerOnly, 'an empty log\n<ADIF_VER:5>3.1.6<EOH>\n');
    const result = await run(['import', headerOnly, '--station', String(own.stationId), '--json']);
    t.equal(result.status, 0, 'a valid document with a header and no records is fine');
    t.match(JSON.parse(result.stdout), { parsed: 0, imported: 0, failed: 0, messages: [] });
  });

  t.test('import of a LoTW report confirms; --on-duplicate names the policies; --insert-unmatched', async (t) => {
    const own = await createOperator(db.pool, { callsign: 'DL2CLI' });
    const station = String(own.stationId);
    t.equal((await run(['import', file, '--station', station])).status, 0);
    const report = join(dir, 'lotwreport.adi');
    writeFileSync(report, lotwReport('DL2CLI', [
      { call: 'OH1CLI', date: '20240301', time: '1016', band: '20M', mode: 'CW' },
      { call: 'OH3CLI', date: '20240301', time: '1200', band: '20M', mode: 'CW' },
    ]));
    const bad = await run(['import', report, '--station', station, '--on-duplicate', 'replace']);
    t.equal(bad.status, 2);
    t.match(bad.stderr, /--on-duplicate must be one of skip, confirm, merge \(got "replace"\)/);
    const dry = await run(['import', report, '--station', station, '--dry-run']);
    t.equal(dry.status, 0, dry.stderr);
    t.equal(dry.stdout, `dry run, nothing written: 2 records read from a LoTW report, 0 would be imported into station location ${station}; ` +
      '1 QSOs would be confirmed, 0 unchanged, 1 records unmatched, 0 ambiguous; 0 duplicates skipped, 0 records failed\n' +
      '  1 record matched no QSO in the log and was not imported (first: OH3CLI 2024-03-01 12:00 20m CW); import with --insert-unmatched to store them\n');
    const real = await run(['import', report, '--station', station, '--json', '--insert-unmatched']);
    t.equal(real.status, 0, real.stderr);
    t.match(JSON.parse(real.stdout), { parsed: 2, imported: 1, confirmed: 1, unmatched: 1, download: 'lotw' });
    const { rows } = await db.pool.query("SELECT call, lotw_qsl_rcvd FROM qso WHERE station_id = $1 ORDER BY call", [own.stationId]);
    t.same(rows, [{ call: 'OH1CLI', lotw_qsl_rcvd: 'Y' }, { call: 'OH3CLI', lotw_qsl_rcvd: 'Y' }]);
  });

  t.test('export: to stdout or a file, since an id', async (t) => {
    const toStdout = await run(['export', '--station', station]);
    t.equal(toStdout.status, 0, toStdout.stderr);
    const document = parseAdif(toStdout.stdout);
    t.same(document.records.map((r) => [r.fields.CALL, r.fields.STATION_CALLSIGN]), [['OH1CLI', 'DL1CLI']]);
    t.match(toStdout.stderr, /^exported 1 QSOs \(last id \d+\)\n$/);

    const out = join(dir, 'out.adi');
    const toFile = await run(['export', '--station', station, '-o', out, '--json']);
    t.equal(toFile.status, 0, toFile.stderr);
    t.equal(toFile.stderr, '', 'a short export prints no progress line');
    const { exported, last_fetched_id: lastId, file: written } = JSON.parse(toFile.stdout);
    t.same([exported, written], [1, out]);
    const inFile = parseAdif(readFileSync(out, 'utf8'));
    t.same(inFile.records, document.records, 'the same records as on stdout');
    t.equal(inFile.header.fields.PROGRAMID, 'logbook');

    const since = await run(['export', '--station', station, '--since-id', String(lastId), '--json']);
    t.equal(since.status, 0);
    t.same(JSON.parse(since.stderr), { exported: 0, last_fetched_id: lastId });
    t.equal(parseAdif(since.stdout).records.length, 0);
  });

  t.test('gzip: import reads .gz files and compressed stdin, export -o x.adi.gz writes gzip', async (t) => {
    const own = await createOperator(db.pool, { callsign: 'DL3CLI' });
    const compressed = join(dir, 'log.adi.gz');
    writeFileSync(compressed, gzipSync(adifDocument([qso('OH5GZ', '20240303', '1000', '20m', 'CW'), qso('OH6GZ', '20240303', '1001', '20m', 'CW')])));
    const fromFile = await run(['import', compressed, '--station', String(own.stationId), '--json']);
    t.equal(fromFile.status, 0, fromFile.stderr);
    t.match(JSON.parse(fromFile.stdout), { parsed: 2, imported: 2 });
    const fromStdin = await run(['import', '-', '--station', String(own.stationId), '--dry-run', '--json'],
      gzipSync(adifDocument([qso('OH5GZ', '20240303', '1000', '20m', 'CW'), qso('OH7GZ', '20240303', '1002', '20m', 'CW')])));
    t.equal(fromStdin.status, 0, fromStdin.stderr);
    t.match(JSON.parse(fromStdin.stdout), { parsed: 2, imported: 1, skipped: 1, dry_run: true }, 'a dry run counts the stored duplicate');

    const out = join(dir, 'out.adi.gz');
    const exported = await run(['export', '--station', String(own.stationId), '-o', out, '--json']);
    t.equal(exported.status, 0, exported.stderr);
    t.match(JSON.parse(exported.stdout), { exported: 2 });
    const calls = parseAdif(gunzipSync(readFileSync(out)).toString('utf8')).records.map((r) => r.fields.CALL);
    t.same(calls, ['OH5GZ', 'OH6GZ']);
  });

  t.test('errors go to stderr with a non-zero status', async (t) => {
    const cases: Array<[string[], number, RegExp]> = [
      [['import', file, '--station', '999999'], 1, /station location 999999 does not exist/],
      [['import', join(dir, 'missing.adi'), '--station', station], 1, /cannot read .*missing\.adi: ENOENT/],
      [['import', dir, '--station', station], 1, /cannot read .*: not a regular file/],
      [['import', file], 2, /--station is required/],
      [['import', '--station', station], 2, /wrong number of arguments/],
      [['export', '--station', '999999'], 1, /station location 999999 does not exist/],
      [['export', '--station', station, '--since-id=-1'], 2, /--since-id must be a non-negative integer/],
      [['export', '--station', station, '-o', join(dir, 'no', 'such', 'dir.adi')], 1, /^logbook export: ENOENT/],
    ];
    for (const [args, status, message] of cases) {
      const result = await run(args);
      t.equal(result.status, status, args.join(' '));
      t.match(result.stderr, message);
      t.equal(result.stdout, '', 'nothing on stdout');
    }
    t.notOk(existsSync(join(dir, 'no', 'such', 'dir.adi')));
  });
});
