import t from 'tap';
import { execFile } from 'node:child_process';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createOperator, type Operator } from '../helpers/fixtures.js';
import { insertQsos, seedQsos, utc } from '../helpers/qsoRows.js';
import { logbookBin } from '../helpers/bin.js';
import { createStation } from '../../lib/accounts/stations.js';
import { inStationQsoTransaction } from '../../lib/qso/writeLock.js';
import { logbookResource } from '../../lib/http/v2/resources/logbook/index.js';
import { PUBLISHED_STATE_SQL } from '../../lib/publicLog/repository.js';

async function publishedLogbook(server: TestServer, op: Operator, json: Record<string, unknown> = {}): Promise<{ id: number; slug: string }> {
  const res = await server.request('/api/v2/logbook', { method: 'POST', token: op.token, json: { name: `Pub ${Math.random()}`, station_ids: `${op.stationId}`, public: true, ...json } });
  t.equal(res.status, 201, res.text);
  return res.body.data;
}

/** The CLI, run without blocking this process (its server must keep answering meanwhile). */
function cli(databaseUrl: string, ...args: string[]): Promise<{ status: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [logbookBin, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl, LOGBOOK_QUIET: '1' }, encoding: 'utf8' },
      (error, _stdout, stderr) => resolve({ status: error ? Number(error.code ?? 1) : 0, stderr }));
  });
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

const recentHour = (minutesAgo: number): string => utc(new Date(Date.now() - minutesAgo * 60_000));

t.test('public log', async (t) => {
  const server = await startTestServer(t, { resources: [logbookResource] });
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'EA8PUB' });
  const patch = (id: number, json: unknown) => server.request(`/api/v2/logbook/${id}`, { method: 'PATCH', token: op.token, json });

  t.test('publish and unpublish: the page and the search go 404, with one answer for unknown and unpublished', async (t) => {
    const { id, slug } = await publishedLogbook(server, op);
    await insertQsos(db, [{ station_id: op.stationId, call: 'K1ABC', time_on: recentHour(5) }]);
    const page = await server.request(`/api/public/${slug}`);
    t.equal(page.status, 200);
    t.same(page.body.data.callsigns, ['EA8PUB']);
    t.equal(page.body.data.qsos, 1);
    t.equal((await server.request(`/api/public/${slug}/search?call=k1abc`)).body.data.found, true);

    t.equal((await patch(id, { public: false })).status, 200);
    const gone = await server.request(`/api/public/${slug}`);
    const unknown = await server.request('/api/public/no-such-log-000000');
    t.equal(gone.status, 404);
    t.equal(gone.text, unknown.text, 'an unpublished slug answers exactly as an unknown one');
    t.equal((await server.request(`/api/public/${slug}/search?call=K1ABC`)).status, 404);
    t.equal((await server.request('/api/public/bad%20slug')).text, unknown.text);

    const published = await cli(server.db.url, 'logbook', 'publish', String(id), '--hide-frequency', '--banner', 'CLI banner', '--json');
    t.equal(published.status, 0, published.stderr);
    const back = await server.request(`/api/public/${slug}`);
    t.equal(back.status, 200);
    t.match(back.body.data, { banner: 'CLI banner', show_frequency: false, show_times: false });
    const off = await cli(server.db.url, 'logbook', 'unpublish', String(id));
    t.equal(off.status, 0, off.stderr);
    t.equal((await server.request(`/api/public/${slug}`)).status, 404, 'the CLI takes it down at once');
    t.not((await cli(server.db.url, 'logbook', 'publish', '999999')).status, 0, 'an unknown logbook is an error');
  });

  t.test('what each setting hides is absent from the JSON; nothing unpublished leaves', async (t) => {
    const owner = await createOperator(db, { callsign: 'VP8HID' });
    const elsewhere = await createStation(db, { userId: owner.userId, name: 'Not in the logbook', callsign: 'VP8OTH', city: 'Secretville' });
    const { id, slug } = await publishedLogbook(server, owner, { public_banner: '<script>alert(1)</script>' });
    const time = recentHour(10);
    await insertQsos(db, [
      { station_id: owner.stationId, call: 'W1HID', time_on: time, freq: 14_074_000, band: '20m', mode: 'MFSK', submode: 'FT4', operator: 'SECRETOP', name: 'Secret Name', qsl_sent: 'Y', qsl_rcvd: 'Y', qslmsg: 'SECRETMSG', gridsquare: 'FN42' },
      { station_id: elsewhere, call: 'W2OTHER', time_on: time },
    ]);
    const patchOwner = (json: unknown) => server.request(`/api/v2/logbook/${id}`, { method: 'PATCH', token: owner.token, json });
    const hidden = await server.request(`/api/public/${slug}`);
    t.equal(hidden.status, 200);
    t.same(hidden.body.data.recent, [{ call: 'W1HID', band: '20m', mode: 'FT4', freq: 14074000 }], 'times hidden by default, frequency shown');
    t.same(hidden.body.data.last_hour, [{ band: '20m', mode: 'FT4', qsos: 1 }]);
    t.equal(hidden.body.data.banner, '<script>alert(1)</script>', 'the banner is data; the page shows it as text');
    t.same(hidden.body.data.map.worked, [{ lat: 42.5, lng: -71, qsos: 1 }], 'a worked station at its grid square centre');
    t.equal(hidden.body.data.map.stations.length, 1);
    for (const secret of ['SECRETOP', 'Secret Name', 'SECRETMSG', 'W2OTHER', 'Secretville', time.slice(11, 16), owner.token, 'qsl']) {
      t.notOk(hidden.text.includes(secret), `page leaks nothing: ${secret}`);
    }
    const search = await server.request(`/api/public/${slug}/search?call=W1HID`);
    t.same(search.body.data, { call: 'W1HID', found: true, slots: [{ band: '20m', mode: 'FT4', confirmed: true, qsos: 1 }] });
    t.notOk(search.text.includes(time.slice(11, 16)), 'search hides times too');
    t.equal((await server.request(`/api/public/${slug}/search?call=W2OTHER`)).body.data.found, false, 'another location\'s QSOs are not found');

    await patchOwner({ public_show_times: true, public_show_frequency: false });
    const shown = await server.request(`/api/public/${slug}`);
    t.same(shown.body.data.recent, [{ call: 'W1HID', band: '20m', mode: 'FT4', time_on: `${time.replace(' ', 'T')}Z` }]);
    t.notOk(shown.text.includes('14074000'), 'frequency hidden');
    const timed = await server.request(`/api/public/${slug}/search?call=W1HID`);
    t.same(timed.body.data.slots[0].times, [`${time.replace(' ', 'T')}Z`]);
  });

  t.test('search: exact, case-insensitive, portable forms as the services match them', async (t) => {
    const dx = await createOperator(db, { callsign: 'VK0DX' });
    const { slug } = await publishedLogbook(server, dx);
    const time = '2026-01-01 10:00:00';
    await insertQsos(db, [
      { station_id: dx.stationId, call: 'G4ABC', time_on: time, band: '20m', mode: 'CW' },
      { station_id: dx.stationId, call: 'g4abc/p', time_on: time, band: '40m', mode: 'CW', lotw_qsl_rcvd: 'Y' },
      { station_id: dx.stationId, call: 'EA8/G4ABC', time_on: time, band: '15m', mode: 'SSB' },
      { station_id: dx.stationId, call: 'G4ABC/QRP', time_on: time, band: '10m', mode: 'SSB' },
      { station_id: dx.stationId, call: 'G4ABC/EA8', time_on: time, band: '17m', mode: 'SSB' },
      { station_id: dx.stationId, call: 'G4ABCD', time_on: time, band: '12m', mode: 'SSB' },
    ]);
    const slots = async (call: string) => {
      const res = await server.request(`/api/public/${slug}/search?call=${encodeURIComponent(call)}`);
      t.equal(res.status, 200, res.text);
      return res.body.data.slots.map((s: { band: string; mode: string; confirmed: boolean }) => `${s.band} ${s.mode}${s.confirmed ? ' confirmed' : ''}`);
    };
    t.same(await slots('G4ABC'), ['10m SSB', '15m SSB', '20m CW', '40m CW confirmed'], 'the bare call finds /P, /QRP and EA8/, not /EA8 or G4ABCD');
    t.same(await slots(' g4abc '), ['10m SSB', '15m SSB', '20m CW', '40m CW confirmed'], 'case-insensitive');
    t.same(await slots('G4ABC/P'), ['40m CW confirmed'], 'a portable form finds only itself');
    t.same(await slots('EA8/G4ABC'), ['15m SSB']);
    t.same(await slots('G4ABC/EA8'), ['17m SSB']);
    t.same(await slots('G4AB'), [], 'no partial matches');
    const bad = await server.request(`/api/public/${slug}/search?call=${encodeURIComponent("G4ABC' OR 1=1")}`);
    t.equal(bad.status, 400);
    t.equal(bad.body.error.details.field, 'call');
    t.equal((await server.request(`/api/public/${slug}/search`)).status, 400);
  });

  t.test('the cache never serves an answer older than the last commit once the next request arrives', async (t) => {
    const live = await createOperator(db, { callsign: 'ZL9LIVE' });
    const { slug } = await publishedLogbook(server, live);
    const page = async () => (await server.request(`/api/public/${slug}`)).body.data;
    const search = async (call: string) => (await server.request(`/api/public/${slug}/search?call=${call}`)).body.data.found;
    t.equal((await page()).qsos, 0);
    t.equal(await search('AA1NEW'), false);
    const [newId] = await insertQsos(db, [{ station_id: live.stationId, call: 'AA1NEW', time_on: recentHour(1) }]);
    t.equal((await page()).qsos, 1, 'a QSO written after the answer was cached is in the next one');
    t.equal(await search('AA1NEW'), true, 'and in the next search');

    // A transaction that took its id first but commits last: the answer cached in between must not hide it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let inserted!: () => void;
    const wrote = new Promise<void>((resolve) => { inserted = resolve; });
    const slow = inStationQsoTransaction(db, [live.stationId], async (client) => {
      await client.query(`INSERT INTO qso (station_id, call, time_on, band) VALUES ($1, 'AA2SLOW', $2, '20m')`, [live.stationId, recentHour(1)]);
      inserted();
      await held;
    });
    await wrote;
    await insertQsos(db, [{ station_id: live.stationId, call: 'AA3FAST', time_on: recentHour(1) }]);
    t.equal((await page()).qsos, 2, 'the fast one is there, the slow one not yet committed');
    release();
    await slow;
    t.equal((await page()).qsos, 3, 'the slow one is there as soon as it committed');
    t.equal(await search('AA2SLOW'), true);

    await inStationQsoTransaction(db, [live.stationId], (client) => client.query('DELETE FROM qso WHERE id = $1', [newId]));
    t.equal((await page()).qsos, 2, 'a deletion is seen by the next request');
    t.equal(await search('AA1NEW'), false);
    await inStationQsoTransaction(db, [live.stationId], (client) => client.query(`UPDATE qso SET band = '6m' WHERE call = 'AA3FAST'`));
    t.same((await page()).recent.map((q: { call: string; band: string }) => `${q.call} ${q.band}`).sort(), ['AA2SLOW 20m', 'AA3FAST 6m'], 'an update too');
    await db.query(`UPDATE stations SET callsign = 'ZL9NEW' WHERE id = $1`, [live.stationId]);
    t.same((await page()).callsigns, ['ZL9NEW'], 'and a location\'s new callsign');
  });

  t.test('the freshness check walks indexes in the generic plan a connection keeps', async (t) => {
    // After five runs of a named statement PostgreSQL may keep one plan for every snapshot: that
    // plan must not read the whole qso table (an EXISTS over "txid >= xmin" got a Seq Scan),
    // nor the whole list of deletions.
    const big = await createOperator(db, { callsign: 'VP8BIG' });
    const { slug } = await publishedLogbook(server, big);
    await seedQsos(db, [big.stationId], `INSERT INTO qso (station_id, call, time_on, band, mode)
      SELECT $1, 'W' || n || 'GEN', timestamp '2020-01-01' + n * interval '1 minute', '20m', 'CW' FROM generate_series(1, 20000) n`, [big.stationId]);
    await seedQsos(db, [big.stationId], `DELETE FROM qso WHERE station_id = $1 AND id % 4 = 0`, [big.stationId]);
    await db.query('ANALYZE qso');
    await db.query('ANALYZE qso_deletions');
    const client = await db.connect();
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE public_state_generic(text, text) AS ${PUBLISHED_STATE_SQL}`);
      const snapshot = (await client.query<{ s: string }>('SELECT pg_current_snapshot()::text AS s')).rows[0]!.s;
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) EXECUTE public_state_generic(${client.escapeLiteral(slug)}, ${client.escapeLiteral(snapshot)})`);
      const scans: string[] = [];
      const walk = (node: PlanNode): void => {
        if (node['Relation Name'] === 'qso' || node['Relation Name'] === 'qso_deletions') scans.push(`${node['Node Type']} ${node['Relation Name']}`);
        node.Plans?.forEach(walk);
      };
      walk(rows[0]!['QUERY PLAN'][0]!.Plan);
      t.ok(scans.some((scan) => scan.endsWith(' qso')) && scans.some((scan) => scan.endsWith(' qso_deletions')), scans.join(', '));
      t.same(scans.filter((scan) => scan.startsWith('Seq Scan')), [], `no table scan: ${scans.join(', ')}`);
      await client.query('DEALLOCATE public_state_generic');
      await client.query('RESET plan_cache_mode');
    } finally {
      client.release();
    }
  });

  t.test('ETag, Cache-Control and 304', async (t) => {
    const { slug } = await publishedLogbook(server, op, { name: 'Etag log' });
    for (const path of [`/api/public/${slug}`, `/api/public/${slug}/search?call=K1ABC`]) {
      const first = await server.request(path);
      const etag = first.headers.get('etag')!;
      t.match(etag, /^"[\w-]+"$/);
      t.equal(first.headers.get('cache-control'), 'public, max-age=5');
      const again = await server.request(path, { headers: { 'if-none-match': etag } });
      t.equal(again.status, 304);
      t.equal(again.text, '');
      t.equal((await server.request(path, { headers: { 'if-none-match': '"other"' } })).status, 200);
    }
    const before = (await server.request(`/api/public/${slug}`)).headers.get('etag')!;
    await insertQsos(db, [{ station_id: op.stationId, call: 'K1ABC', time_on: recentHour(2), band: '2m' }]);
    const changed = await server.request(`/api/public/${slug}`, { headers: { 'if-none-match': before } });
    t.equal(changed.status, 200, 'a changed log answers in full to the old ETag');
    t.not(changed.headers.get('etag'), before);
  });
});

t.test('rate limit per client address', async (t) => {
  const server = await startTestServer(t, { resources: [logbookResource], config: { trust_proxy: true, api_rate_limits: { public: { requests: 3, window: 60 } } } });
  const op = await createOperator(server.db.pool);
  const { slug } = await publishedLogbook(server, op);
  const from = (address: string, path = `/api/public/${slug}`) => server.request(path, { headers: { 'x-forwarded-for': address } });
  for (let i = 0; i < 3; i++) t.equal((await from('192.0.2.1')).status, 200);
  const limited = await from('192.0.2.1', `/api/public/${slug}/search?call=K1ABC`);
  t.equal(limited.status, 429, 'search and page share the bucket');
  t.ok(Number(limited.headers.get('retry-after')) > 0);
  t.equal((await from('192.0.2.1', '/api/public/unknown-slug')).status, 429, 'unknown slugs count too');
  t.equal((await from('192.0.2.2')).status, 200, 'another address has its own');
});

t.test('the public bucket is on even when api_rate_limits is unset', async (t) => {
  const server = await startTestServer(t, { resources: [logbookResource], config: { trust_proxy: true } });
  const statuses: number[] = [];
  for (let batch = 0; batch < 601; batch += 50) {
    const size = Math.min(50, 601 - batch);
    const replies = await Promise.all(Array.from({ length: size }, () => server.request('/api/public/nothing-here', { headers: { 'x-forwarded-for': '198.51.100.7' } })));
    statuses.push(...replies.map((r) => r.status));
  }
  t.equal(statuses.filter((s) => s === 404).length, 600, 'the default limit: 600 a minute');
  t.equal(statuses.filter((s) => s === 429).length, 1);
});
