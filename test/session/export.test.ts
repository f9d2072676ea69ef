import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { seedQsos } from '../helpers/qsoRows.js';
import { adifRecords, v2AdifRecords } from '../helpers/adifList.js';
import { addClubMember } from '../../lib/accounts/clubs.js';
import { setPassword } from '../../lib/accounts/users.js';
import { hashPassword } from '../../lib/auth/passwords.js';
import { AppClient, PASSWORD } from './helpers.js';

t.test('GET /app/export.adi: the filter\'s QSOs as a streamed attachment, scoped as the v2 list', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1EXP' });
  await setPassword(db, op.userId, await hashPassword(PASSWORD));
  const username = (await db.query('SELECT username FROM users WHERE id = $1', [op.userId])).rows[0].username;
  const other = await createOperator(db, { callsign: 'DL2EXP' });
  await seedQsos(db, [op.stationId],
    `INSERT INTO qso (station_id, call, time_on, band, mode, qsl_rcvd, name)
     SELECT $1, (ARRAY['DL','K','JA'])[n % 3 + 1] || n || 'X', timestamp '2025-01-01' + n * interval '2 hours',
            (ARRAY['20m','40m'])[n % 2 + 1], (ARRAY['SSB','CW','FT8'])[n % 3 + 1], CASE WHEN n % 5 = 0 THEN 'Y' ELSE 'N' END, 'Jörg "x" <y>'
       FROM generate_series(1, 1200) n`, [op.stationId]);
  await seedQsos(db, [other.stationId], `INSERT INTO qso (station_id, call, time_on, band, mode) VALUES ($1, 'K1OTHER', '2025-02-01', '20m', 'CW')`, [other.stationId]);

  const app = new AppClient(server);
  t.equal((await app.call('GET', '/app/export.adi')).status, 401, 'signed out: 401');
  t.equal((await app.signIn(username)).status, 200);

  const queries: Record<string, string>[] = [{}, { band: '40m', mode: 'cw' }, { qsl_filter: 'qsl', qso_since: '2025-02-01', qso_until: '2025-02-28' }, { callsign: 'ja2x' }, { callsign: 'K1OTHER' }];
  for (const query of queries) {
    const params = new URLSearchParams(query);
    const res = await app.call('GET', `/app/export.adi?${params}`, { csrf: false });
    t.equal(res.status, 200, `${params}`);
    t.match(res.headers.get('content-disposition'), /^attachment; filename="DL1EXP-\d{4}-\d\d-\d\d\.adi"$/);
    t.match(res.headers.get('content-type'), /^text\/plain/);
    t.match(res.text, /<EOH>/i, 'a whole document, header included');
    const expected = await v2AdifRecords(server, op.token, query);
    t.equal(adifRecords(res.text), expected, `${params || 'no filter'}: the v2 list's ADIF records, byte for byte`);
  }
  const all = await app.call('GET', '/app/export.adi', { csrf: false });
  t.equal(all.text.match(/<EOR>/gi)?.length, 1200, 'every QSO of the owner, no other user\'s');

  const foreign = await app.call('GET', `/app/export.adi?station_id=${other.stationId}`, { csrf: false });
  t.equal(foreign.status, 403, 'another user\'s location is refused');
  const bad = await app.call('GET', '/app/export.adi?qso_since=2025-02-31', { csrf: false });
  t.same([bad.status, bad.body.error.code], [400, 'validation_error'], 'a bad filter is a clear 400');
  const crossSite = await app.call('GET', '/app/export.adi', { csrf: false, headers: { 'sec-fetch-site': 'cross-site' } });
  t.same([crossSite.status, crossSite.body.error.code], [403, 'cross_origin'], 'another site cannot start the download');
  const otherOrigin = await app.call('GET', '/app/export.adi', { csrf: false, headers: { origin: 'https://evil.example' } });
  t.equal(otherOrigin.status, 403);

  // A club member below officer level, acting for the club: only the QSOs they made.
  const club = await createClub(db, 'DL0EXP');
  await addClubMember(db, club.clubId, op.userId, 3);
  await seedQsos(db, [club.clubStationId],
    `INSERT INTO qso (station_id, call, time_on, band, mode, operator) VALUES
       ($1, 'G4AAA', '2025-03-01 10:00', '20m', 'CW', 'DL1EXP'), ($1, 'G4BBB', '2025-03-01 11:00', '20m', 'CW', 'DL9ZZZ')`, [club.clubStationId]);
  t.equal((await app.call('POST', '/app/acting-as', { json: { club_id: club.clubId } })).status, 200);
  const clubs = await app.call('GET', '/app/export.adi', { csrf: false });
  t.equal(clubs.status, 200);
  t.match(clubs.headers.get('content-disposition'), /filename="DL0EXP-/);
  t.match(clubs.text, /<CALL:5>G4AAA/);
  t.notMatch(clubs.text, /G4BBB/, 'another operator\'s club QSO stays out');
  t.equal(clubs.text.match(/<EOR>/gi)?.length, 1);
});
