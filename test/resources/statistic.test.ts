import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { createStation } from '../../lib/accounts/stations.js';
import { dxccEntities } from '../../lib/dxcc/entities.js';
import { statisticResource } from '../../lib/http/v2/resources/statistic/index.js';
import { insertQsos, seedQsos, utc } from '../helpers/qsoRows.js';

const DAY = 86_400_000;

/** Expected today/month/year counts for QSO times, by the same UTC periods the server uses. */
function periods(times: Date[], now = new Date()) {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  const within = (from: number, to: number) => times.filter((time) => time.getTime() >= from && time.getTime() < to).length;
  return {
    today: within(Date.UTC(y, m, d), Date.UTC(y, m, d + 1)),
    month: within(Date.UTC(y, m, 1), Date.UTC(y, m + 1, 1)),
    year: within(Date.UTC(y, 0, 1), Date.UTC(y + 1, 0, 1)),
  };
}

/** Expected QSOs per UTC year, ascending. */
function byYear(times: Date[]) {
  const years = new Map<number, number>();
  for (const time of times) years.set(time.getUTCFullYear(), (years.get(time.getUTCFullYear()) ?? 0) + 1);
  return [...years].sort((a, b) => a[0] - b[0]).map(([year, count]) => ({ year, count }));
}

t.test('statistic resource', async (t) => {
  const server = await startTestServer(t, { resources: [statisticResource] });
  const db = server.db.pool;
  const op = await createOperator(db);
  const second = await createStation(db, { userId: op.userId, name: 'Second', callsign: op.callsign });
  const admin = await createOperator(db, { admin: true, scopes: ['statistic:read'] });
  const stranger = await createOperator(db);
  const deletedEntity = dxccEntities('name').find((e) => e.deleted)!.adif;

  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const times = [now, new Date(now.getTime() - 40 * DAY), new Date('2020-06-01T12:00:00Z'), new Date('2021-01-01T08:30:00Z'), new Date(now.getTime() - 2 * 3_600_000)];
  await insertQsos(db, [
    { station_id: op.stationId, call: 'DL1AA', time_on: utc(times[0]!), band: '20m', mode: 'SSB', submode: 'USB', dxcc: 230, qsl_rcvd: 'Y', qslrdate: '2024-06-01', lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-01' },
    { station_id: op.stationId, call: 'DL2BB', time_on: utc(times[1]!), band: '40m', mode: 'CW', dxcc: 230, lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-05-01' },
    { station_id: op.stationId, call: 'K1CC', time_on: utc(times[2]!), band: '20m', mode: 'FT8', dxcc: 291, eqsl_qsl_rcvd: 'Y', eqsl_qslrdate: '2020-07-01', lotw_qsl_rcvd: 'N' },
    { station_id: op.stationId, call: 'XX1DD', time_on: utc(times[3]!), band: '2m', mode: 'FM', prop_mode: 'SAT', sat_name: 'AO-91', dxcc: deletedEntity, qsl_rcvd: 'Y', qslrdate: '2021-02-01' },
    { station_id: second, call: 'KH6EE', time_on: utc(times[4]!), band: '20m', mode: 'SSB', dxcc: 110 },
    { station_id: stranger.stationId, call: 'DL3FF', time_on: utc(now), band: '20m', mode: 'SSB', dxcc: 230, qsl_rcvd: 'Y', qslrdate: '2024-06-01' },
  ]);
  const get = (query: string, token = op.token) => server.request(`/api/v2/statistic${query}`, { token });

  t.test('qso profile (default): totals, UTC periods, band and mode breakdown, DXCC', async (t) => {
    const res = await get('');
    t.equal(res.status, 200);
    t.match(res.body.meta, { resource: 'statistic', method: 'GET', profile: 'qso', admin: false });
    t.same(Object.keys(res.body.data), ['qso']);
    t.same(res.body.data.qso, {
      total: 5,
      activity: periods(times),
      breakdown: {
        by_band: [{ band: '20m', count: 3 }, { band: '2m', count: 1 }, { band: '40m', count: 1 }],
        by_mode: [{ mode: 'SSB', count: 2 }, { mode: 'CW', count: 1 }, { mode: 'FM', count: 1 }, { mode: 'FT8', count: 1 }],
        by_year: byYear(times),
      },
      dxcc: {
        worked: 3, confirmed: 1, confirmed_paper: 1, confirmed_lotw: 1, available: 340,
        deleted: { worked: 1, confirmed_paper: 1, confirmed_lotw: 0 },
      },
    });
    t.same(res.body.data.qso, (await get('?profile=QSO')).body.data.qso, 'profile is case-insensitive');
  });

  t.test('dxcc profile: current entities worked and confirmed (card or LoTW) per band, longest wave first', async (t) => {
    const res = await get('?profile=dxcc');
    t.equal(res.status, 200);
    t.same(Object.keys(res.body.data), ['dxcc_by_band', 'dxcc_entities']);
    // 20m: DL (card+LoTW), K (eQSL only: not confirmed), KH6 on the second location; 2m: a deleted entity.
    t.same(res.body.data.dxcc_by_band, [{ band: '40m', worked: 1, confirmed: 1 }, { band: '20m', worked: 3, confirmed: 1 }]);
    t.same((await get(`?profile=dxcc&station_id=${second}`)).body.data.dxcc_by_band, [{ band: '20m', worked: 1, confirmed: 0 }]);
    // Each current entity worked, once, the deleted one and the stranger's QSOs left out.
    t.same(res.body.data.dxcc_entities, [{ dxcc: 110, confirmed: false }, { dxcc: 230, confirmed: true }, { dxcc: 291, confirmed: false }]);
  });

  t.test('station_id narrows the scope; a foreign location is forbidden', async (t) => {
    const one = await get(`?station_id=${second}`);
    t.equal(one.body.data.qso.total, 1);
    t.same(one.body.data.qso.dxcc.worked, 1);
    const foreign = await get(`?station_id=${op.stationId},${stranger.stationId}`);
    t.equal(foreign.status, 403);
    t.equal(foreign.body.error.code, 'forbidden');
    t.equal((await get('?station_id=abc')).status, 400);
  });

  t.test('confirmations profile: pairs per type, breakdowns adding up, filters echoed', async (t) => {
    const res = await get('?profile=confirmations');
    t.equal(res.status, 200);
    t.equal(res.body.meta.profile, 'confirmations');
    t.same(res.body.data.confirmations, {
      counts: { lotw: 2, eqsl: 1, qsl: 2, qrz: 0, clublog: 0 },
      total: 5,
      by_band: [{ band: '20m', count: 3 }, { band: '2m', count: 1 }, { band: '40m', count: 1 }],
      by_mode: [{ mode: 'SSB', count: 2 }, { mode: 'CW', count: 1 }, { mode: 'FM', count: 1 }, { mode: 'FT8', count: 1 }],
      filters: { type: ['lotw', 'eqsl', 'qsl', 'qrz', 'clublog'], since: null, qso_since: null, qso_until: null, band: null, mode: null },
    });

    const since = await get('?profile=confirmations&type=qsl,LOTW&since=2024-04-01');
    t.same(since.body.data.confirmations.counts, { qsl: 1, lotw: 1 });
    t.equal(since.body.data.confirmations.total, 2);
    t.same(since.body.data.confirmations.filters.type, ['qsl', 'lotw']);
    t.equal(since.body.data.confirmations.filters.since, '2024-04-01');

    const sat = await get('?profile=confirmations&band=SAT');
    t.same(sat.body.data.confirmations.counts, { lotw: 0, eqsl: 0, qsl: 1, qrz: 0, clublog: 0 });
    t.same(sat.body.data.confirmations.by_band, [{ band: '2m', count: 1 }]);
    const usb = await get('?profile=confirmations&mode=usb');
    t.equal(usb.body.data.confirmations.total, 2);
    t.same(usb.body.data.confirmations.by_mode, [{ mode: 'SSB', count: 2 }]);
    const day = await get('?profile=confirmations&qso_since=2021-01-01&qso_until=2021-01-01');
    t.equal(day.body.data.confirmations.total, 1);
    t.equal(day.body.data.confirmations.filters.qso_until, '2021-01-01');
    const none = await get('?profile=confirmations&band=6m');
    t.same(none.body.data.confirmations, { ...none.body.data.confirmations, total: 0, by_band: [], by_mode: [] });

    const badType = await get('?profile=confirmations&type=lotw,hrdlog');
    t.equal(badType.status, 400);
    t.same(badType.body.error.details.allowed, ['lotw', 'eqsl', 'qsl', 'qrz', 'clublog']);
    const badDate = await get('?profile=confirmations&since=2024-02-30');
    t.equal(badDate.status, 400);
    t.same(badDate.body.error.details, { field: 'since', format: 'YYYY-MM-DD' });
  });

  t.test('system and full are for instance administrators only', async (t) => {
    for (const profile of ['system', 'full', 'everything']) {
      const res = await get(`?profile=${profile}`);
      t.equal(res.status, 400, profile);
      t.equal(res.body.error.code, 'validation_error');
      t.same(res.body.error.details, { field: 'profile', allowed: ['qso', 'confirmations', 'dxcc'] });
    }
    const system = await get('?profile=system', admin.token);
    t.equal(system.status, 200);
    t.same(system.body.meta.admin, true);
    t.same(Object.keys(system.body.data), ['system']);
    const info = system.body.data.system;
    t.equal(info.version, server.services.version);
    t.match(info.database_version, /^\d+/);
    t.match(info.node_version, /^v\d+/);
    t.ok(info.schema_migrations.some((m: { version: string }) => m.version === '001_schema'));
    t.same(info.counts, { qsos: 6, users: 3, clubs: 0, stations: 4 });
    t.same(info.worker, { configured: false });
    // The instance's total follows deletions and moves, as the table holds them.
    const { rows: [gone] } = await seedQsos(db, [op.stationId], 'DELETE FROM qso WHERE id = (SELECT min(id) FROM qso WHERE station_id = $1) RETURNING id', [op.stationId]);
    await seedQsos(db, [op.stationId, second], 'UPDATE qso SET station_id = $2 WHERE id = (SELECT max(id) FROM qso WHERE station_id = $1)', [op.stationId, second]);
    const after = await get('?profile=system', admin.token);
    t.same(after.body.data.system.counts, { qsos: 5, users: 3, clubs: 0, stations: 4 }, `QSO ${gone!.id} deleted, another moved`);
    const { rows: [table] } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso');
    t.equal(after.body.data.system.counts.qsos, table!.n);
    const full = await get('?profile=full', admin.token);
    t.same(Object.keys(full.body.data), ['qso', 'confirmations', 'system']);
    t.equal(full.body.data.qso.total, 0, 'the admin\'s own log is empty');
    const bogus = await get('?profile=bogus', admin.token);
    t.same(bogus.body.error.details.allowed, ['qso', 'confirmations', 'dxcc', 'system', 'full']);
  });

  t.test('read-only: 405 for writes, 404 for items, scope checked', async (t) => {
    for (const method of ['POST', 'PATCH', 'DELETE', 'PUT']) {
      for (const path of ['/api/v2/statistic', '/api/v2/statistic/1']) {
        const res = await server.request(path, { method, token: op.token, json: {} });
        t.equal(res.status, 405, `${method} ${path}`);
        t.equal(res.headers.get('allow'), 'GET');
        t.equal(res.body.error.code, 'method_not_allowed');
      }
    }
    t.equal((await get('/1')).status, 404);
    const noScope = await createOperator(db, { scopes: ['qso:read'] });
    const denied = await get('', noScope.token);
    t.equal(denied.status, 403);
    t.same(denied.body.error.details, { required_scope: 'statistic:read' });
  });

  t.test('club members below officer count only their own QSOs', async (t) => {
    const club = await createClub(db);
    const member = await club.memberToken(3, 'DL7MEM');
    const officer = await club.memberToken(9, 'DL7OFF');
    await insertQsos(db, [
      { station_id: club.clubStationId, call: 'G1AA', time_on: '2024-01-01 10:00:00', operator: 'DL7MEM', dxcc: 223 },
      { station_id: club.clubStationId, call: 'G1BB', time_on: '2024-01-01 11:00:00', operator: 'DL7MEM', dxcc: 223, lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-02-01' },
      { station_id: club.clubStationId, call: 'F1CC', time_on: '2024-01-01 12:00:00', operator: 'DL7OFF', dxcc: 227, qsl_rcvd: 'Y', qslrdate: '2024-02-01' },
    ]);
    const mine = await get('?profile=confirmations', member.token);
    t.same(mine.body.data.confirmations.counts, { lotw: 1, eqsl: 0, qsl: 0, qrz: 0, clublog: 0 });
    const memberQso = (await get('', member.token)).body.data.qso;
    t.equal(memberQso.total, 2);
    t.equal(memberQso.dxcc.worked, 1);
    const officerQso = (await get('', officer.token)).body.data.qso;
    t.equal(officerQso.total, 3);
    t.equal(officerQso.dxcc.worked, 2);
    t.equal(officerQso.dxcc.confirmed, 2);
  });
});
