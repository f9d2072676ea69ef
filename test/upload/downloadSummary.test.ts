import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { lotwReport, qrzDownload, type DownloadQso } from '../import/downloadFixtures.js';
import { adifDocument, qso } from '../import/helpers.js';
import { post, v1Key } from '../v1/helpers.js';
import { formBody } from './helpers.js';

/**
 * The summary a person reads, on every door: a 10,000-record LoTW report that matches nothing
 * answers a few grouped lines (well under 64 kB) naming the option that would store the records;
 * the form fields insert_unmatched and strict_callsign steer an upload.
 */

const SUMMARY_MAX_BYTES = 64 * 1024;

/** `count` made-up QSOs, a minute apart, none of them in the log. */
function unknownQsos(count: number): DownloadQso[] {
  return Array.from({ length: count }, (_, i) => {
    const minutes = 600 + i;
    const day = 1 + Math.floor(minutes / 1440);
    const hhmm = `${String(Math.floor((minutes % 1440) / 60)).padStart(2, '0')}${String(minutes % 60).padStart(2, '0')}`;
    return { call: `K${i}ZZ`, date: `202403${String(day).padStart(2, '0')}`, time: hhmm, band: '20M', mode: 'FT8' };
  });
}

async function waitForJob(server: TestServer, token: string, location: string) {
  for (let i = 0; i < 1200; i++) {
    const res = await server.request(location, { token });
    if (res.status === 200 && !['queued', 'running'].includes(res.body.data.state)) return res;
    await sleep(100);
  }
  throw new Error(`job at ${location} never ended`);
}

t.test('import summaries over HTTP', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const count = async (stationId: number) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [stationId])).rows[0]!.n;
  const upload = (token: string, query: string, body: string | Buffer, headers: Record<string, string>) =>
    server.request(`/api/v2/qso${query}`, { method: 'POST', token, body, headers });

  t.test('a 10,000-record LoTW report that matches nothing: a short summary, synchronous, as a job and on v1', async (t) => {
    const op = await createOperator(db, { callsign: 'DL1SUM' });
    await upload(op.token, `?station_profile_id=${op.stationId}`, adifDocument([qso('W1OLD', '20240101', '1200', '20m', 'CW')]), { 'content-type': 'text/plain' });
    const report = lotwReport(op.callsign, unknownQsos(10_000));

    const res = await upload(op.token, `?station_profile_id=${op.stationId}`, report, { 'content-type': 'text/plain' });
    t.equal(res.status, 201, res.text.slice(0, 500));
    t.ok(Buffer.byteLength(res.text) < SUMMARY_MAX_BYTES, `answer of ${Buffer.byteLength(res.text)} bytes`);
    t.match(res.body.data, { parsed: 10_000, imported: 0, unmatched: 10_000, confirmed: 0, failed: 0 });
    t.same(res.body.data.messages, [
      '10000 records matched no QSO in the log and were not imported (first: K0ZZ 2024-03-01 10:00 20m FT8; K1ZZ 2024-03-01 10:01 20m FT8; ' +
        'K2ZZ 2024-03-01 10:02 20m FT8; K3ZZ 2024-03-01 10:03 20m FT8; K4ZZ 2024-03-01 10:04 20m FT8; …); import with insert_unmatched=true to store them',
    ]);
    t.equal(await count(op.stationId), 1, 'a report into a filled location stores nothing');

    const queued = await upload(op.token, `?station_profile_id=${op.stationId}`, report, { 'content-type': 'text/plain', prefer: 'respond-async' });
    t.equal(queued.status, 202, queued.text);
    const job = await waitForJob(server, op.token, queued.headers.get('location')!);
    t.ok(Buffer.byteLength(job.text) < SUMMARY_MAX_BYTES, `job answer of ${Buffer.byteLength(job.text)} bytes`);
    t.match(job.body.data, { state: 'done', summary: { unmatched: 10_000, imported: 0 } });
    t.match(job.body.data.summary.messages, [/^10000 records matched no QSO in the log and were not imported .*insert_unmatched=true/]);

    const key = await v1Key(db, op.userId, 'rw');
    const v1 = await post(server, '/api/qso', { key, station_profile_id: op.stationId, type: 'adif', string: report });
    t.equal(v1.status, 201, v1.text.slice(0, 500));
    t.ok(Buffer.byteLength(v1.text) < SUMMARY_MAX_BYTES, `v1 answer of ${Buffer.byteLength(v1.text)} bytes`);
    t.match(v1.body.messages, [/^10000 records matched no QSO in the log and were not imported \(first: K0ZZ [^)]*\)$/], 'v1 has no such option to name');
  });

  t.test('form fields: a QRZ download into an empty location is stored, unless insert_unmatched=false', async (t) => {
    const op = await createOperator(db, { callsign: 'DL2SUM' });
    const download = qrzDownload(op.callsign, [
      { call: 'K6QRA', date: '20240301', time: '1000', band: '20m', mode: 'SSB', status: 'C', qsldate: '20240305' },
      { call: 'K6QRB', date: '20240301', time: '1100', band: '40m', mode: 'CW', status: 'N' },
    ]);
    const refused = formBody([['station_profile_id', String(op.stationId)], ['insert_unmatched', 'false']], { filename: 'qrz.adi', content: download });
    const kept = await upload(op.token, '', refused.body, { 'content-type': refused.contentType });
    t.equal(kept.status, 201, kept.text);
    t.match(kept.body.data, { imported: 0, unmatched: 2 });
    t.equal(await count(op.stationId), 0);
    const form = formBody([['station_profile_id', String(op.stationId)]], { filename: 'qrz.adi', content: download });
    const stored = await upload(op.token, '', form.body, { 'content-type': form.contentType });
    t.equal(stored.status, 201, stored.text);
    t.match(stored.body.data, { imported: 2, unmatched: 2 });
    t.equal(await count(op.stationId), 2);
    const bad = await upload(op.token, `?station_profile_id=${op.stationId}&insert_unmatched=maybe`, download, { 'content-type': 'text/plain' });
    t.equal(bad.status, 400);
    t.match(bad.body.error, { details: { field: 'insert_unmatched' } });
  });

  t.test('strict_callsign refuses records of another station callsign; without it they are imported under a warning', async (t) => {
    const op = await createOperator(db, { callsign: 'K9CTS' });
    const document = adifDocument([
      qso('K7ABC', '20240301', '1000', '20m', 'CW', [['STATION_CALLSIGN', 'KK7KNB']]),
      qso('K7ABD', '20240301', '1001', '20m', 'CW'),
    ]);
    const strict = formBody([['station_profile_id', String(op.stationId)], ['strict_callsign', 'true']], { filename: 'log.adi', content: document });
    const refused = await upload(op.token, '', strict.body, { 'content-type': strict.contentType });
    t.equal(refused.status, 201, refused.text);
    t.match(refused.body.data, { parsed: 2, imported: 1, failed: 1 });
    t.match(refused.body.data.messages, [/^1 record names station callsign KK7KNB, not the location's K9CTS: not imported/]);
    const warned = await upload(op.token, `?station_profile_id=${op.stationId}`, document, { 'content-type': 'text/plain' });
    t.match(warned.body.data, { imported: 1, skipped: 1, failed: 0 });
    t.match(warned.body.data.messages, [
      /^1 record names station callsign KK7KNB, not the location's K9CTS: imported all the same .*strict_callsign=true to refuse them$/,
      /^1 record skipped as duplicates: .*K7ABD 2024-03-01 10:01 20m CW/,
    ]);
  });
});
