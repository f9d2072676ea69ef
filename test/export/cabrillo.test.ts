import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { insertQsos, seedQsos } from '../helpers/qsoRows.js';
import { runCli } from '../helpers/cli.js';
import { projectRoot } from '../../lib/paths.js';
import { appVersion } from '../../lib/version.js';
import { contestResource } from '../../lib/http/v2/resources/contest/index.js';
import { openCabrilloExport } from '../../lib/export/cabrillo/export.js';
import { readCabrilloOptions } from '../../lib/export/cabrillo/options.js';

const golden = (name: string) => readFileSync(join(projectRoot, 'test', 'fixtures', 'cabrillo', name), 'utf8')
  .replace('{VERSION}', appVersion).replace(/\r?\n/g, '\r\n');

t.test('Cabrillo export of contest sessions', async (t) => {
  const server = await startTestServer(t, { resources: [contestResource] });
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1ABC' });
  await db.query("UPDATE stations SET gridsquare = 'JO62QM' WHERE id = $1", [op.stationId]);
  const session = async (fields: Record<string, unknown>, qsos: Parameters<typeof insertQsos>[1]) => {
    const ids = await insertQsos(db, qsos);
    const res = await server.request('/api/v2/contest', { method: 'POST', token: op.token, json: { station_id: op.stationId, ...fields, link_qso_ids: ids.join(',') } });
    t.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data.id as number;
  };
  const cabrillo = (id: number, query = '', token = op.token) => server.request(`/api/v2/contest/${id}?format=cabrillo${query}`, { token });
  const row = (call: string, time: string, extra: Record<string, string | number | null>) => ({ station_id: op.stationId, call, time_on: time, ...extra });

  t.test('CQ WW: report and zone, the header from the session and its location', async (t) => {
    const id = await session({ contest: 'CQ-WW-SSB', time_start: '2024-10-26 00:00', time_end: '2024-10-27 23:59:59', exchangefields: 'exchange' }, [
      row('W1AW', '2024-10-26 07:11:00', { band: '80m', mode: 'SSB', freq: 3_799_000, rst_sent: '59', rst_rcvd: '59', stx_string: '14', srx_string: '5' }),
      row('JA1ZLO', '2024-10-26 07:12:00', { band: '20m', mode: 'SSB', freq: 14_205_000, rst_sent: '59', rst_rcvd: '57', stx_string: '14', srx_string: '25' }),
      row('K3LR', '2024-10-26 07:13:00', { band: '10m', mode: 'SSB', submode: 'USB', freq: 28_450_000, rst_sent: '59', rst_rcvd: '59', stx_string: '14', srx_string: '05' }),
    ]);
    const res = await cabrillo(id, '&category_power=LOW&name=Alice%20Example&email=alice@example.org&soapbox=First%20time%0AGreat%20fun');
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^text\/plain; charset=utf-8/);
    t.equal(res.headers.get('content-disposition'), 'attachment; filename="DL1ABC-CQ-WW-SSB.log"');
    t.same(JSON.parse(res.headers.get('x-cabrillo-problems')!), {});
    t.equal(res.text, golden('cq-ww.cbr'));
  });

  t.test('CQ WPX: report and serial; two transmitters add the transmitter column', async (t) => {
    const id = await session({ contest: 'CQ-WPX-CW', time_start: '2024-05-25 00:00', exchangefields: 'serial' }, [
      row('K1AR', '2024-05-25 00:00:00', { band: '20m', mode: 'CW', freq: 14_025_500, rst_sent: '599', rst_rcvd: '599', stx: 1, srx: 2001, extra: '{"app_n1mm_radio_nr":"1"}' }),
      row('OH2BH', '2024-05-25 00:01:00', { band: '40m', mode: 'CW', freq: 7_012_000, rst_sent: '599', rst_rcvd: '599', stx: 2, srx: 17, extra: '{"app_n1mm_radio_nr":"2"}' }),
    ]);
    t.equal((await cabrillo(id, '&category_operator=MULTI-OP&category_transmitter=TWO&operators=DL1ABC%20DL2XYZ')).text, golden('cq-wpx.cbr'));
  });

  t.test('VHF: report, serial and locator; band designators above 30 MHz', async (t) => {
    const id = await session({ contest: 'DARC-VHF-UHF-MICROWAVE', time_start: '2024-09-07 14:00', exchangefields: 'serial,gridsquare' }, [
      row('OK1KIR', '2024-09-07 14:00:00', { band: '2m', mode: 'SSB', freq: 144_300_000, rst_sent: '59', rst_rcvd: '59', stx: 1, srx: 12, gridsquare: 'JO60UA' }),
      row('DF0MU', '2024-09-07 14:05:00', { band: '70cm', mode: 'CW', freq: 432_050_000, rst_sent: '599', rst_rcvd: '599', stx: 2, srx: 101, gridsquare: 'JN58td' }),
      row('DK0NA', '2024-09-07 14:09:00', { band: '23cm', mode: 'FM', freq: 1_296_500_000, rst_sent: '59', rst_rcvd: '59', stx: 3, srx: 7, gridsquare: 'JO50' }),
    ]);
    t.equal((await cabrillo(id)).text, golden('vhf.cbr'));
  });

  t.test('problems are reported by kind without stopping the export', async (t) => {
    const id = await session({ contest: 'CQ-WPX-SSB', time_start: '2024-03-30 00:00', time_end: '2024-03-31 23:59:59', exchangefields: 'serial' }, [
      row('EA8AA', '2024-03-29 23:59:00', { band: '20m', mode: 'SSB', rst_sent: '59', rst_rcvd: '59', stx: 1, srx: 1 }),
      row('EA8BB', '2024-03-30 00:01:00', { band: '20m', mode: 'SSB', rst_sent: '59', rst_rcvd: '59', stx: 2, srx: null }),
      row('ea8aa', '2024-03-30 00:02:00', { band: '20m', mode: 'SSB', submode: 'USB', rst_sent: '59', rst_rcvd: '59', stx: 3, srx: 4 }),
      row('EA8CC', '2024-03-30 00:03:00', { band: '20m', mode: 'SSB', rst_sent: '59', rst_rcvd: '59', stx: 7, srx: 9 }),
      row('EA8DD', '2024-03-30 00:04:00', { band: '20m', mode: 'SSB', rst_sent: '59', rst_rcvd: '59', stx: 7, srx: 12 }),
      row('EA8EE', '2024-03-30 00:05:00', { band: '20m', mode: 'SSTV', rst_sent: '59', rst_rcvd: '59', stx: 8, srx: 3 }),
      row('EA8FF', '2024-03-30 00:06:00', { band: '8m', mode: 'SSB', freq: 40_680_000, rst_sent: '59', rst_rcvd: '59', stx: 9, srx: 3 }),
    ]);
    const res = await cabrillo(id);
    t.equal(res.status, 200);
    t.equal(res.text.split('\r\n').filter((line) => line.startsWith('QSO:')).length, 7, 'every QSO is written');
    t.same(JSON.parse(res.headers.get('x-cabrillo-problems')!), {
      outside_session: 1, missing_exchange: 1, duplicate: 1, serial_out_of_sequence: 1, serial_repeated: 2, mode_not_expressible: 1, band_not_expressible: 1,
    });
    const report = await server.request(`/api/v2/contest/${id}?format=cabrillo-report`, { token: op.token });
    t.equal(report.status, 200);
    t.equal(report.body.data.qso_count, 7);
    t.equal(report.body.data.problem_count, 8);
    const byKind = Object.fromEntries(report.body.data.problems.map((p: { kind: string }) => [p.kind, p]));
    t.match(byKind.outside_session.examples, [/EA8AA 2024-03-29 2359/]);
    t.match(byKind.missing_exchange.examples, [/EA8BB .*no received serial/]);
    t.match(byKind.duplicate.examples, [/ea8aa 2024-03-30 0002 20m SSB/]);
    t.match(byKind.serial_out_of_sequence.examples, [/serial 3 after 2|serial 7 after 3/]);
    t.match(byKind.serial_repeated.examples, [/serial 7 sent 2 times/, /serial 7 sent 2 times/]);
    t.match(byKind.band_not_expressible.examples, [/EA8FF .*band 8m/]);
    t.match(res.text, /\r\nQSO: 40680 PH 2024-03-30 0006 /, 'the frequency in kHz where no designator exists');
  });

  t.test('bad options and unknown sessions', async (t) => {
    const id = await session({ contest: 'CQ-WW-CW', time_start: '2024-11-23 00:00' }, []);
    const bad = await cabrillo(id, '&category_power=MEDIUM');
    t.equal(bad.status, 400);
    t.equal(bad.body.error.details.field, 'category_power');
    t.equal((await cabrillo(id, '&name=A%0AQSO:%20x')).status, 400, 'a line break cannot write lines of its own');
    t.equal((await server.request(`/api/v2/contest/${id}?format=pdf`, { token: op.token })).status, 400);
    const other = await createOperator(db);
    t.equal((await cabrillo(id, '', other.token)).status, 404, 'another owner\'s session');
    const empty = await cabrillo(id);
    t.match(empty.text, /^START-OF-LOG: 3.0\r\nCONTEST: CQ-WW-CW\r\n/);
    t.match(empty.text, /CATEGORY-BAND: ALL\r\nCATEGORY-MODE: MIXED\r\n/);
    t.match(empty.text, /\r\nEND-OF-LOG:\r\n$/);
    t.notMatch(empty.text, /CLAIMED-SCORE/);
  });

  t.test('a club member below officer exports only their own QSOs', async (t) => {
    const club = await createClub(db, 'DL0CLB');
    const officer = await club.memberToken(9, 'DL9OFF');
    const member = await club.memberToken(3, 'DL3MEM');
    const ids = await insertQsos(db, [
      { station_id: club.clubStationId, call: 'G3AAA', time_on: '2024-06-01 10:00:00', operator: 'DL3MEM', rst_sent: '59', rst_rcvd: '59', stx: 1, srx: 1 },
      { station_id: club.clubStationId, call: 'G3BBB', time_on: '2024-06-01 10:01:00', operator: 'DL9OFF', rst_sent: '59', rst_rcvd: '59', stx: 2, srx: 2 },
    ]);
    const created = await server.request('/api/v2/contest', {
      method: 'POST', token: officer.token, json: { contest: 'IARU-HF', station_id: club.clubStationId, time_start: '2024-06-01 00:00', link_qso_ids: ids.join(',') },
    });
    t.equal(created.status, 201);
    const lines = async (token: string) => (await cabrillo(created.body.data.id, '', token)).text.split('\r\n').filter((line) => line.startsWith('QSO:'));
    t.match(await lines(member.token), [/G3AAA/]);
    t.equal((await lines(member.token)).length, 1);
    t.equal((await lines(officer.token)).length, 2);
  });

  t.test('10,000 QSOs stream: the statement still reads while the client has read only the start', async (t) => {
    const id = await session({ contest: 'CQ-WPX-CW', time_start: '2024-05-25 00:00', exchangefields: 'serial' }, []);
    await seedQsos(db, [op.stationId], `
      WITH q AS (INSERT INTO qso (station_id, call, time_on, band, mode, freq, rst_sent, rst_rcvd, stx, srx)
                 SELECT $1, 'K' || n || 'AA', timestamp '2024-05-25 00:00' + n * interval '10 seconds', '20m', 'CW', 14025000, '599', '599', n, n
                   FROM generate_series(1, 10000) n RETURNING id)
      INSERT INTO contest_session_qsos (session_id, qso_id) SELECT $2, id FROM q`, [op.stationId, id]);
    const exported = await openCabrilloExport(db, { sessionId: id, userId: op.userId, scope: { stationIds: [op.stationId], operator: null }, options: readCabrilloOptions({}) });
    t.ok(exported);
    t.equal(exported!.qsoCount, 10000);
    t.equal(exported!.problemCount, 0);
    const openExports = async () => (await db.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%FROM contest_session_qsos l%' AND query NOT LIKE '%pg_stat_activity%'",
    )).rows[0].n;
    const reader = exported!.document[Symbol.asyncIterator]();
    let text = '';
    for (let i = 0; i < 3; i += 1) text += String((await reader.next()).value);
    t.match(text, /^START-OF-LOG/);
    t.equal(text.split('\r\n').filter((line) => line.startsWith('QSO:')).length, 400, 'read in pieces of 200 lines');
    t.equal(await openExports(), 1, 'the statement is still open: the rest is not in memory');
    for (let next = await reader.next(); !next.done; next = await reader.next()) text += String(next.value);
    t.equal(text.split('\r\n').filter((line) => line.startsWith('QSO:')).length, 10000);
    t.equal(await openExports(), 0, 'the connection is given back at the end');
    t.match(text, /END-OF-LOG:\r\n$/);
  });

  t.test('logbook export --contest ID --cabrillo writes the file and reports problems on stderr', async (t) => {
    const id = await session({ contest: 'CQ-WPX-CW', time_start: '2024-05-25 00:00', exchangefields: 'serial' }, [
      row('K1AR', '2024-05-25 01:00:00', { band: '20m', mode: 'CW', freq: 14_025_500, rst_sent: '599', rst_rcvd: '599', stx: 1, srx: 2001 }),
      row('K1AR', '2024-05-25 01:03:00', { band: '20m', mode: 'CW', freq: 14_025_500, rst_sent: '599', rst_rcvd: '599', stx: 2, srx: 2005 }),
    ]);
    const file = join(mkdtempSync(join(tmpdir(), 'logbook-cbr-')), 'out.log');
    const run = async (args: string[]) => {
      const { status: code, stdout, stderr } = await runCli(args, { ...process.env, DATABASE_URL: server.db.url });
      return { code, stdout, stderr };
    };
    const written = await run(['export', '--contest', String(id), '--cabrillo', '-o', file, '--category-power', 'QRP']);
    t.equal(written.code, 0, written.stderr);
    t.match(written.stderr, /1 duplicate QSOs/);
    t.match(written.stdout, /exported 2 QSOs of contest session/);
    const text = readFileSync(file, 'utf8');
    t.match(text, /CATEGORY-POWER: QRP\r\n/);
    t.equal(text.split('\r\n').filter((line) => line.startsWith('QSO:')).length, 2);
    const toStdout = await run(['export', '--contest', String(id), '--cabrillo', '--json']);
    t.equal(toStdout.code, 0);
    t.match(toStdout.stdout, /^START-OF-LOG: 3.0\r\n/);
    t.match(JSON.parse(toStdout.stderr.trim().split('\n').pop()!), { exported: 2, problem_count: 1 });
    const missingFlag = await run(['export', '--contest', String(id)]);
    t.not(missingFlag.code, 0);
    t.match(missingFlag.stderr, /add --cabrillo/);
    const bad = await run(['export', '--contest', String(id), '--cabrillo', '--category-band', '11M']);
    t.not(bad.code, 0);
    t.match(bad.stderr, /--category-band/);
  });
});
