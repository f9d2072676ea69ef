import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { adifDocument, qso, qsoCount } from './helpers.js';
import { lotwReport, qrzDownload } from './downloadFixtures.js';
import { runCli } from '../helpers/cli.js';

/** `logbook import` of the services' downloads: what it stores by default, what it says, the flags that override. */

t.test('logbook import of downloads', async (t) => {
  const db = await testDatabase(t);
  const env = { ...process.env, DATABASE_URL: db.url, LOGBOOK_QUIET: '1' };
  const run = (args: string[]) => runCli(args, env);
  const dir = mkdtempSync(join(tmpdir(), 'logbook-cli-downloads-'));
  const file = join(dir, 'log.adi');
  writeFileSync(file, adifDocument([qso('OH1CLI', '20240301', '1015', '20m', 'CW')]));

  t.test('import: a 10,000-record report that matches nothing prints a short summary; a QRZ download into an empty location is stored; --strict-callsign', async (t) => {
    const own = await createOperator(db.pool, { callsign: 'DL4CLI' });
    const station = String(own.stationId);
    t.equal((await run(['import', file, '--station', station])).status, 0, 'the location holds a QSO');
    const report = join(dir, 'big-lotwreport.adi');
    writeFileSync(report, lotwReport('DL4CLI', Array.from({ length: 10_000 }, (_, i) => ({
      call: `K${i}ZZ`, date: `202404${String(1 + Math.floor(i / 1440)).padStart(2, '0')}`,
      time: `${String(Math.floor((i % 1440) / 60)).padStart(2, '0')}${String(i % 60).padStart(2, '0')}`, band: '20M', mode: 'FT8',
    }))));
    const big = await run(['import', report, '--station', station]);
    t.equal(big.status, 0, big.stderr);
    t.ok(Buffer.byteLength(big.stdout) < 64 * 1024, `summary of ${Buffer.byteLength(big.stdout)} bytes`);
    t.match(big.stdout, /^imported 0 of 10000 records from a LoTW report into station location \d+; .*10000 records unmatched/);
    t.match(big.stdout, /\n {2}10000 records matched no QSO in the log and were not imported \(first: K0ZZ 2024-04-01 00:00 20m FT8; .*\); import with --insert-unmatched to store them\n$/);
    t.equal((await run(['import', report, '--station', station, '--insert-unmatched', '--no-insert-unmatched'])).status, 2, 'contradicting flags are a usage error');

    const empty = await createOperator(db.pool, { callsign: 'DL5CLI' });
    const qrz = join(dir, 'qrz.adi');
    // The first record of the download names another station.
    writeFileSync(qrz, qrzDownload('DL5CLI', [
      { call: 'K8QRB', date: '20240301', time: '1100', band: '40m', mode: 'CW', status: 'N' },
      { call: 'K8QRA', date: '20240301', time: '1000', band: '20m', mode: 'SSB', status: 'C', qsldate: '20240305' },
    ]).replace('<station_callsign:6>DL5CLI', '<station_callsign:6>KK7KNB'));
    const strict = await run(['import', qrz, '--station', String(empty.stationId), '--strict-callsign', '--json']);
    t.equal(strict.status, 0, strict.stderr);
    t.match(JSON.parse(strict.stdout), { download: 'qrz', parsed: 2, imported: 1, unmatched: 1, failed: 1 });
    t.match(JSON.parse(strict.stdout).messages, [/^1 record names station callsign KK7KNB, not the location's DL5CLI: not imported/, /^1 record matched no QSO in the log and was imported as new QSOs/]);
    t.equal(await qsoCount(db.pool, empty.stationId), 1, 'into an empty location a QRZ download is stored, less the refused record');
  });

});
