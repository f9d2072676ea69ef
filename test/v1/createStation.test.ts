import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { createLogbook } from '../../lib/accounts/logbooks.js';
import { post, v1Key } from './helpers.js';

const FULL = {
  station_profile_name: 'Summit JO50', hrdlog_username: 'dl3new', station_gridsquare: 'jo50ab', station_city: 'Gipfel',
  station_iota: 'eu-001', station_sota: 'dm/bm-001', station_callsign: 'dl3new/p', station_power: '100', station_dxcc: '230',
  dxccname: 'Germany', dxccprefix: 'DL', station_cnty: 'Bayern', station_cq: '14', station_itu: 28, station_active: '',
  eqslqthnickname: 'Summit', state: 'BY', county: null, station_sig: 'gma', station_sig_info: 'dm-001', qrzrealtime: '0',
  station_wwff: 'dlff-0001', station_pota: 'de-0001', oqrs: '1', oqrs_text: 'QSL via OQRS', oqrs_email: '1',
  webadifrealtime: '0', clublogrealtime: '1', clublogignore: '0', hrdlogrealtime: '0',
  station_uuid: '0e3c52d2-3c2e-4d9b-9a51-2c1f2a7e9b11', eqsl_default_qslmsg: 'TNX FER QSO', link_active_logbook: '1',
};

t.test('create_station', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL3NEW' });
  const logbook = await createLogbook(db, { userId: op.userId, name: 'Main', stationIds: [op.stationId] });
  const key = await v1Key(db, op.userId, 'rw');

  t.test('every field stored, linked to the active logbook, 201', async (t) => {
    const res = await post(server, `/api/create_station/${key}`, [FULL]);
    t.equal(res.status, 201);
    t.same(res.body, { status: 'success', message: '1 locations imported.' });
    const { rows } = await db.query('SELECT * FROM stations WHERE uuid = $1', [FULL.station_uuid]);
    const s = rows[0];
    t.match(s, {
      user_id: op.userId, name: 'Summit JO50', callsign: 'DL3NEW/P', gridsquare: 'JO50AB', city: 'Gipfel', dxcc: 230,
      country: 'Federal Republic Of Germany', cq: 14, itu: 28, state: 'BY', cnty: 'Bayern', iota: 'EU-001', sota: 'DM/BM-001', wwff: 'DLFF-0001',
      pota: 'DE-0001', sig: 'GMA', sig_info: 'DM-001', power: 100, active: false,
    });
    t.same(s.settings, {
      hrdlog_username: 'dl3new', dxccname: 'Germany', dxccprefix: 'DL', eqslqthnickname: 'Summit', qrzrealtime: '0', oqrs: '1',
      oqrs_text: 'QSL via OQRS', oqrs_email: '1', webadifrealtime: '0', clublogrealtime: '1', clublogignore: '0',
      hrdlogrealtime: '0', eqsl_default_qslmsg: 'TNX FER QSO',
    });
    const links = await db.query('SELECT logbook_id FROM logbook_stations WHERE station_id = $1', [s.id]);
    t.same(links.rows, [{ logbook_id: logbook.id }]);
  });

  t.test('duplicates: same references and callsign, or the same uuid, give 200 dupe', async (t) => {
    const again = await post(server, `/index.php/api/create_station/${key}/`, [{ ...FULL, station_uuid: '' }]);
    t.equal(again.status, 200);
    t.same(again.body, { status: 'dupe', message: '0 locations imported.' });
    const sameUuid = await post(server, `/api/create_station/${key}`, [{ ...FULL, station_profile_name: 'Renamed' }]);
    t.same(sameUuid.body, { status: 'dupe', message: '0 locations imported.' });
    const { rows } = await db.query('SELECT count(*)::int AS n FROM stations WHERE user_id = $1', [op.userId]);
    t.equal(rows[0].n, 2);
  });

  t.test('several locations, a single object, link_active_logbook 0, station_active, missing required fields', async (t) => {
    const res = await post(server, `/api/create_station/${key}`, [
      { station_profile_name: 'A', station_callsign: 'DL3NEW', link_active_logbook: 0 },
      { station_profile_name: 'A', station_callsign: 'DL3NEW' },
      { station_profile_name: 'B', station_callsign: 'DL3NEW', station_active: '1', station_uuid: 'not-a-uuid' },
      { station_profile_name: 'No callsign' },
      'not an object',
    ]);
    t.equal(res.status, 201);
    t.same(res.body, { status: 'success', message: '2 locations imported.' });
    const { rows } = await db.query<{ name: string; active: boolean; links: number }>(
      `SELECT name, active, (SELECT count(*)::int FROM logbook_stations WHERE station_id = s.id) AS links
         FROM stations s WHERE user_id = $1 AND name IN ('A', 'B') ORDER BY name`,
      [op.userId],
    );
    t.same(rows, [{ name: 'A', active: false, links: 0 }, { name: 'B', active: true, links: 0 }]);
    const single = await post(server, `/api/create_station/${key}`, { station_profile_name: 'C', station_callsign: 'DL3NEW' });
    t.equal(single.status, 201);
  });

  t.test('a uuid of another owner is not taken over', async (t) => {
    const other = await createOperator(db);
    const { rows } = await db.query('SELECT uuid FROM stations WHERE id = $1', [other.stationId]);
    const res = await post(server, `/api/create_station/${key}`, [{ station_profile_name: 'Thief', station_callsign: 'DL3NEW', station_uuid: rows[0].uuid }]);
    t.equal(res.status, 200);
    t.equal(res.body.status, 'dupe');
  });

  t.test('errors: 401 bad key, 403 read-only key, 401 club member, 400 bodies, 500 storage failure', async (t) => {
    for (const path of ['/api/create_station/wlbadkey000000', '/api/create_station', `/api/create_station/${op.token}`]) {
      const res = await post(server, path, [FULL]);
      t.equal(res.status, 401, path);
      t.same(res.body, { status: 'error', message: 'Auth Error, invalid key' });
    }
    const readOnly = await post(server, `/api/create_station/${await v1Key(db, op.userId, 'r')}`, [FULL]);
    t.equal(readOnly.status, 403);
    t.same(readOnly.body, { status: 'error', message: 'API key does not have write permissions' });

    const club = await createClub(db);
    const member = await club.memberToken(3);
    const memberKey = await v1Key(db, club.clubId, 'rw', member.userId);
    const denied = await post(server, `/api/create_station/${memberKey}`, [{ station_profile_name: 'X', station_callsign: 'DL0CLB' }]);
    t.equal(denied.status, 401);
    t.same(denied.body, { status: 'error', message: 'Auth Error, not enough grants for this operation' });
    const officer = await club.memberToken(9);
    const officerKey = await v1Key(db, club.clubId, 'rw', officer.userId);
    const allowed = await post(server, `/api/create_station/${officerKey}`, [{ station_profile_name: 'X', station_callsign: 'DL0CLB' }]);
    t.equal(allowed.status, 201);
    t.equal((await db.query('SELECT count(*)::int AS n FROM stations WHERE user_id = $1', [club.clubId])).rows[0].n, 2);

    const empty = await post(server, `/api/create_station/${key}`, '');
    t.equal(empty.status, 400);
    t.same(empty.body, { status: 'error', message: 'No file uploaded' });
    for (const bad of ['[{"station_profile_name": ', '"just a string"', '{"unrelated": 1}']) {
      const res = await post(server, `/api/create_station/${key}`, bad);
      t.equal(res.status, 400, bad);
      t.same(res.body, { status: 'error', message: 'Invalid JSON file' });
    }

    await db.query(`CREATE FUNCTION refuse_station() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$`);
    await db.query('CREATE TRIGGER refuse_station BEFORE INSERT ON stations FOR EACH ROW EXECUTE FUNCTION refuse_station()');
    t.teardown(() => db.query('DROP TRIGGER refuse_station ON stations; DROP FUNCTION refuse_station()'));
    const failed = await post(server, `/api/create_station/${key}`, [{ station_profile_name: 'Z', station_callsign: 'DL3NEW' }]);
    t.equal(failed.status, 500);
    t.same(failed.body, { status: 'error', message: 'Processing error: the locations could not be stored' });
    t.equal((await db.query("SELECT count(*)::int AS n FROM stations WHERE name = 'Z'")).rows[0].n, 0);
  });
});
