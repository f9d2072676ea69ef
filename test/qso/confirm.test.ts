import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { insertQsos } from '../helpers/qsoRows.js';
import type { EventPublisher } from '../../lib/services.js';
import { lotwReport } from '../import/downloadFixtures.js';

/** The duplicate policy and recognised downloads on the v2 doors: ADIF, bulk JSON, file upload. */

function recordingPublisher(): EventPublisher & { events: unknown[] } {
  const events: unknown[] = [];
  return { events, publish: (_topic, payload) => void events.push(payload), close: async () => undefined };
}

t.test('confirmations over v2', async (t) => {
  const publisher = recordingPublisher();
  const server = await startTestServer(t, { events: publisher });
  const db = server.db.pool;
  const post = (json: unknown, token: string) => server.request('/api/v2/qso', { method: 'POST', token, json });
  const lotw = (stationId: number) =>
    db.query('SELECT call, lotw_qsl_rcvd, name FROM qso WHERE station_id = $1 ORDER BY call', [stationId]).then((result) => result.rows);

  t.test('a LoTW report as an ADIF import confirms; one event with the confirmed count', async (t) => {
    const op = await createOperator(db);
    await insertQsos(db, [{ station_id: op.stationId, call: 'W1CFA', time_on: '2024-03-01 10:00:00', band: '20m', mode: 'CW' }]);
    const adif = lotwReport(op.callsign, [
      { call: 'W1CFA', date: '20240301', time: '1005', band: '20M', mode: 'CW' },
      { call: 'W1CFB', date: '20240301', time: '1100', band: '20M', mode: 'CW' },
    ]);
    const dry = await post({ import_type: 'adif', station_profile_id: op.stationId, adif, dryrun: true }, op.token);
    t.equal(dry.status, 200);
    t.match(dry.body.data, { dryrun: true, parsed: 2, imported: 0, confirmed: 1, unmatched: 1 });
    publisher.events.length = 0;
    const res = await post({ import_type: 'adif', station_profile_id: op.stationId, adif }, op.token);
    t.equal(res.status, 201);
    t.same(res.body.data, {
      parsed: 2, imported: 0, confirmed: 1, unchanged: 0, unmatched: 1, ambiguous: 0, skipped: 0, failed: 0,
      messages: ['1 record matched no QSO in the log and was not imported (first: W1CFB 2024-03-01 11:00 20m CW); import with insert_unmatched=true to store them'],
    });
    t.same(publisher.events, [
      { type: 'qso_imported', station_id: op.stationId, imported: 0, confirmed: 1 },
      { type: 'qso_imported', station_id: op.stationId, imported: 0, confirmed: 1 },
    ], 'one event per topic for the whole import');
    t.same(await lotw(op.stationId), [{ call: 'W1CFA', lotw_qsl_rcvd: 'Y', name: null }]);
    const late = await post({ import_type: 'adif', station_profile_id: op.stationId, adif, insert_unmatched: true }, op.token);
    t.equal(late.status, 400, 'the import already streams with the policy it had when "adif" began');
    const inserted = await post({ import_type: 'adif', station_profile_id: op.stationId, insert_unmatched: true, adif }, op.token);
    t.match(inserted.body.data, { imported: 1, unchanged: 1, unmatched: 1 });
  });

  t.test('bulk JSON with on_duplicate merge; an unknown policy is 400 naming the allowed ones', async (t) => {
    const op = await createOperator(db);
    await insertQsos(db, [{ station_id: op.stationId, call: 'W2CFA', time_on: '2024-03-01 10:00:00', band: '20m', mode: 'SSB' }]);
    const qsos = [{ call: 'W2CFA', band: '20m', mode: 'USB', qso_date: '2024-03-01', time_on: '1000', name: 'Bo', qsl_rcvd: 'Y' }];
    const bad = await post({ station_profile_id: op.stationId, qsos, on_duplicate: 'overwrite' }, op.token);
    t.equal(bad.status, 400);
    t.same(bad.body.error, {
      code: 'validation_error', message: 'Field "on_duplicate" must be one of skip, confirm, merge',
      details: { field: 'on_duplicate', allowed: ['skip', 'confirm', 'merge'] },
    });
    t.equal((await post({ station_profile_id: op.stationId, qsos, insert_unmatched: 'maybe' }, op.token)).status, 400);
    const single = await post({ station_profile_id: op.stationId, ...qsos[0], on_duplicate: 'merge' }, op.token);
    t.equal(single.status, 400, 'a single create has no duplicate policy');
    const res = await post({ station_profile_id: op.stationId, qsos, on_duplicate: 'merge' }, op.token);
    t.equal(res.status, 201);
    t.match(res.body.data, { parsed: 1, imported: 0, confirmed: 1 });
    t.same(await lotw(op.stationId), [{ call: 'W2CFA', lotw_qsl_rcvd: null, name: 'Bo' }]);
  });

  t.test('a file upload takes on_duplicate from the query', async (t) => {
    const op = await createOperator(db);
    await insertQsos(db, [{ station_id: op.stationId, call: 'W3CFA', time_on: '2024-03-01 10:00:00', band: '20m', mode: 'CW' }]);
    const report = lotwReport(op.callsign, [{ call: 'W3CFA', date: '20240301', time: '1000', band: '20M', mode: 'CW' }]);
    const upload = (query: string) => server.request(`/api/v2/qso?station_profile_id=${op.stationId}${query}`, {
      method: 'POST', token: op.token, body: report, headers: { 'content-type': 'text/plain' },
    });
    t.equal((await upload('&on_duplicate=bogus')).status, 400);
    const skipped = await upload('&on_duplicate=skip');
    t.match(skipped.body.data, { imported: 0, skipped: 1, confirmed: 0 }, 'skip: a duplicate as always');
    const confirmed = await upload('');
    t.match(confirmed.body.data, { confirmed: 1 });
  });

  t.test('a club member below officer level confirms only the QSOs they operated', async (t) => {
    const club = await createClub(db);
    const member = await club.memberToken(3);
    await insertQsos(db, [
      { station_id: club.clubStationId, call: 'W4CFA', time_on: '2024-03-01 10:00:00', band: '20m', mode: 'CW', operator: member.callsign },
      { station_id: club.clubStationId, call: 'W4CFB', time_on: '2024-03-01 11:00:00', band: '20m', mode: 'CW', operator: 'DL9OTH' },
    ]);
    const adif = lotwReport('DL0CLB', [
      { call: 'W4CFA', date: '20240301', time: '1000', band: '20M', mode: 'CW' },
      { call: 'W4CFB', date: '20240301', time: '1100', band: '20M', mode: 'CW' },
    ]);
    const res = await post({ import_type: 'adif', station_profile_id: club.clubStationId, adif }, member.token);
    t.equal(res.status, 201);
    t.match(res.body.data, { confirmed: 1, unmatched: 1 });
    t.same(await lotw(club.clubStationId), [{ call: 'W4CFA', lotw_qsl_rcvd: 'Y', name: null }, { call: 'W4CFB', lotw_qsl_rcvd: null, name: null }]);
  });

  t.test('a report and an edit of the same QSO at once: both stay, whichever comes first, many rounds', async (t) => {
    // Each writes only its own columns, in one statement that re-reads the row it waits for: a
    // PATCH that wrote back the LoTW status it had read fails several of the rounds in every run.
    // The edit starts 0–30 ms after the report (seeded), so that across the rounds it lands
    // before, inside and after the report's transaction.
    const op = await createOperator(db);
    let state = 7;
    const delay = (spread: number) => new Promise((resolve) => setTimeout(resolve, (state = (state * 48271) % 2147483647) % spread));
    for (let round = 0; round < 24; round++) {
      const call = `W5R${String.fromCharCode(65 + round)}`;
      const [id] = await insertQsos(db, [{ station_id: op.stationId, call, time_on: '2024-03-01 10:00:00', band: '20m', mode: 'CW' }]);
      const adif = lotwReport(op.callsign, [{ call, date: '20240301', time: '1000', band: '20M', mode: 'CW' }]);
      const [report, edit] = await Promise.all([
        post({ import_type: 'adif', station_profile_id: op.stationId, adif }, op.token),
        delay(31).then(() => server.request(`/api/v2/qso/${id}`, { method: 'PATCH', token: op.token, json: { comment: `round ${round}`, name: 'Al' } })),
      ]);
      t.match([report.status, report.body.data?.confirmed, edit.status], [201, 1, 200], `round ${round}: both answered`);
      const { rows: [stored] } = await db.query('SELECT comment, name, lotw_qsl_rcvd, lotw_qslrdate::text AS date FROM qso WHERE id = $1', [id]);
      t.same(stored, { comment: `round ${round}`, name: 'Al', lotw_qsl_rcvd: 'Y', date: '2024-03-15' }, `round ${round}: the edit and the confirmation`);
    }
  });
});
