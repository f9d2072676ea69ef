import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { parseAdif } from '../../lib/adif/tokenizer.js';
import { insertQsos } from '../helpers/qsoRows.js';
import { seedMany } from './helpers.js';

/** The records of an export batch: id order is not in the document, so calls identify them. */
function callsOf(adif: string): string[] {
  const { records, problems } = parseAdif(adif);
  if (problems.length) throw new Error(problems.map((p) => p.message).join('; '));
  return records.map((record) => record.fields.CALL!);
}

t.test('GET /api/v2/qso?format=adif', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1EXP' });
  const empty = await createOperator(db);
  // Logged out of time order: ids ascend while time_on goes back and forth.
  const [first, second, third, fourth] = await insertQsos(db, [
    { station_id: op.stationId, call: 'K1AAA', time_on: '2024-05-03 10:00:00', band: '20m', mode: 'SSB', submode: 'USB', freq: 14200000 },
    { station_id: op.stationId, call: 'K1BBB', time_on: '2024-05-01 10:00:00', band: '40m', mode: 'CW', lotw_qsl_rcvd: 'Y' },
    { station_id: op.stationId, call: 'K1CCC', time_on: '2024-05-04 10:00:00', band: '20m', mode: 'FT8' },
    { station_id: op.stationId, call: 'K1DDD', time_on: '2024-05-02 10:00:00', band: '2m', mode: 'FM', prop_mode: 'SAT', sat_name: 'AO-91' },
  ]);
  const adif = (query: string, token = op.token) => server.request(`/api/v2/qso?format=adif${query}`, { token });

  t.test('an ADIF document of the batch, ascending by id, with the export summary and page meta', async (t) => {
    const res = await adif('');
    t.equal(res.status, 200);
    t.match(res.body.data, { exported: 4, lastfetchedid: fourth });
    t.same(callsOf(res.body.data.adif), ['K1AAA', 'K1BBB', 'K1CCC', 'K1DDD'], 'id order, not time order');
    t.match(res.body.data.adif, /<EOH>/);
    t.match(res.body.data.adif, /<FREQ:4>14\.2 /, 'frequencies in MHz');
    t.match(res.body.data.adif, /<STATION_CALLSIGN:6>DL1EXP /);
    t.match(res.body.meta, { resource: 'qso', method: 'GET', page: 1, per_page: 1000, count: 4, total: 4, total_pages: 1, has_more: false });
  });

  t.test('nothing new: exported 0, adif null, lastfetchedid stays at since_id', async (t) => {
    const none = await adif(`&since_id=${fourth}`);
    t.same(none.body.data, { exported: 0, lastfetchedid: fourth, adif: null });
    t.match(none.body.meta, { count: 0, total: 0, total_pages: 0, has_more: false });
    const beyond = await adif('&since_id=999999');
    t.same(beyond.body.data, { exported: 0, lastfetchedid: 999999, adif: null });
    const fresh = await adif('', empty.token);
    t.same(fresh.body.data, { exported: 0, lastfetchedid: 0, adif: null });
  });

  t.test('chaining lastfetchedid into since_id walks every QSO once, then stops', async (t) => {
    const seen: string[] = [];
    let sinceId = 0;
    for (let round = 0; round < 5; round++) {
      const res = await adif(`&per_page=3&since_id=${sinceId}`);
      if (res.body.data.exported === 0) break;
      seen.push(...callsOf(res.body.data.adif));
      t.ok(res.body.data.lastfetchedid > sinceId);
      sinceId = res.body.data.lastfetchedid;
    }
    t.same(seen, ['K1AAA', 'K1BBB', 'K1CCC', 'K1DDD']);
    t.equal(sinceId, fourth);
  });

  t.test('paging by page and per_page, ascending by id', async (t) => {
    const two = await adif('&per_page=3&page=2');
    t.same(callsOf(two.body.data.adif), ['K1DDD']);
    t.match(two.body.data, { exported: 1, lastfetchedid: fourth });
    t.match(two.body.meta, { page: 2, per_page: 3, count: 1, total: 4, total_pages: 2, has_more: false });
    const beyond = await adif('&per_page=3&page=3');
    t.same(beyond.body.data, { exported: 0, lastfetchedid: 0, adif: null });
  });

  t.test('the filters of the JSON list apply', async (t) => {
    t.same(callsOf((await adif('&band=20m')).body.data.adif), ['K1AAA', 'K1CCC']);
    t.same(callsOf((await adif('&band=SAT')).body.data.adif), ['K1DDD']);
    t.same(callsOf((await adif('&mode=usb')).body.data.adif), ['K1AAA']);
    t.same(callsOf((await adif('&callsign=k1ccc')).body.data.adif), ['K1CCC']);
    t.same(callsOf((await adif('&qsl_filter=lotw')).body.data.adif), ['K1BBB']);
    t.same(callsOf((await adif('&qso_since=2024-05-02&qso_until=2024-05-03')).body.data.adif), ['K1AAA', 'K1DDD']);
    const since = await adif(`&since_id=${first}`);
    t.match(since.body.data, { exported: 3, lastfetchedid: fourth });
    const foreign = await adif('&station_id=999999');
    t.equal(foreign.status, 403);
  });

  t.test('limit: the newest N by time, written in id order', async (t) => {
    const res = await adif('&limit=2&page=2');
    t.same(callsOf(res.body.data.adif), ['K1AAA', 'K1CCC'], 'the two latest QSOs, ascending by id');
    t.match(res.body.data, { exported: 2, lastfetchedid: third });
    t.match(res.body.meta, { page: 1, per_page: 2, count: 2, total: 4, total_pages: 2, has_more: true });
    t.equal(second < third, true);
  });

  t.test('values with tabs, newlines and backslashes, dates and extra fields come out as stored', async (t) => {
    const odd = await createOperator(db, { callsign: 'DL9ODD' });
    await insertQsos(db, [{
      station_id: odd.stationId, call: 'K9ODD', time_on: '2024-05-05 23:59:58', time_off: '2024-05-06 00:01:00',
      comment: 'tab\there\\back', notes: 'line one\nline two', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-06-01', cqz: 5,
      extra: JSON.stringify({ app_logbook_ref: 'x\ty' }),
    }]);
    const { records } = parseAdif((await adif('', odd.token)).body.data.adif);
    t.match(records[0]!.fields, {
      CALL: 'K9ODD', QSO_DATE: '20240505', TIME_ON: '235958', QSO_DATE_OFF: '20240506', TIME_OFF: '000100',
      COMMENT: 'tab\there\\back', NOTES: 'line one\nline two', LOTW_QSLRDATE: '20240601', CQZ: '5', APP_LOGBOOK_REF: 'x\ty',
    });
  });

  t.test('per_page defaults to 1000 for ADIF and is capped at 5000', async (t) => {
    const big = await createOperator(db);
    const ids = await seedMany(db, big.stationId, 1001);
    const res = await adif('', big.token);
    t.match(res.body.data, { exported: 1000, lastfetchedid: ids[999] });
    t.match(res.body.meta, { per_page: 1000, count: 1000, total: 1001, total_pages: 2, has_more: true });
    const rest = await adif(`&since_id=${ids[999]}`, big.token);
    t.match(rest.body.data, { exported: 1, lastfetchedid: ids[1000] });
    t.equal((await adif('&per_page=9000', big.token)).body.meta.per_page, 5000);
  });
});
