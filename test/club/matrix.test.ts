import t, { type Test } from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub } from '../helpers/fixtures.js';
import { removeClubMember } from '../../lib/accounts/clubs.js';
import { insertQsos } from '../helpers/qsoRows.js';

/**
 * The clubstation permission matrix: what members at level 3 and 6, an officer (9) and a member
 * whose membership was withdrawn can do with the club's QSOs, confirmations and members.
 * Below officer level a member reaches only the QSOs they logged (operator = their callsign).
 */
t.test('clubstation permission matrix', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const club = await createClub(db, 'DL0MTX');
  const members = {
    member3: await club.memberToken(3, 'DL3MTX'),
    member6: await club.memberToken(6, 'DL6MTX'),
    officer: await club.memberToken(9, 'DL9MTX'),
    revoked: await club.memberToken(3, 'DL4REV'),
  };
  type Who = keyof typeof members;
  const loggers = ['member3', 'member6', 'officer', 'revoked'] as const;

  // Each member logged one confirmed QSO at the club station; the revoked member's stays in the log.
  const logged = Object.fromEntries(
    (await insertQsos(db, loggers.map((who, i) => ({
      station_id: club.clubStationId, call: `K${i}LOG`, time_on: `2024-05-0${i + 1} 12:00:00`, band: '20m', mode: 'CW',
      operator: members[who].callsign, lotw_qsl_rcvd: 'Y', lotw_qslrdate: `2024-06-0${i + 1}`,
    })))).map((id, i) => [loggers[i], id]),
  ) as Record<Who, number>;
  await removeClubMember(db, club.clubId, members.revoked.userId);

  const everyone = loggers.map((who) => logged[who]).sort((a, b) => a - b);
  /** The QSOs each token may reach; null: the token is refused (403 club_access_revoked). */
  const reach: Record<Who, number[] | null> = {
    member3: [logged.member3],
    member6: [logged.member6],
    officer: everyone,
    revoked: null,
  };
  const who = Object.keys(members) as Who[];
  const request = (name: Who, path: string, init: { method?: string; json?: unknown } = {}) =>
    server.request(path, { ...init, token: members[name].token });

  /** The revoked member's token fails every call the same way. */
  function refused(t: Test, res: { status: number; body: { error: { code: string } } }, what: string) {
    t.equal(res.status, 403, what);
    t.equal(res.body.error.code, 'club_access_revoked', what);
  }

  t.test('QSO list: only own QSOs below officer level', async (t) => {
    for (const name of who) {
      const res = await request(name, '/api/v2/qso?per_page=100');
      if (reach[name] === null) { refused(t, res, name); continue; }
      t.equal(res.status, 200, name);
      t.same(res.body.data.map((q: { id: number }) => q.id).sort((a: number, b: number) => a - b), reach[name], name);
    }
  });

  t.test('QSO list total counts the same QSOs', async (t) => {
    for (const name of who) {
      const res = await request(name, '/api/v2/qso?per_page=1');
      if (reach[name] === null) { refused(t, res, name); continue; }
      t.equal(res.body.meta.total, reach[name]!.length, name);
    }
  });

  t.test('ADIF export holds the same QSOs', async (t) => {
    for (const name of who) {
      const res = await request(name, '/api/v2/qso?format=adif');
      if (reach[name] === null) { refused(t, res, name); continue; }
      t.equal(res.status, 200, name);
      t.equal(res.body.data.exported, reach[name]!.length, name);
      t.equal(res.body.data.lastfetchedid, Math.max(...reach[name]!), name);
      const calls = [...res.body.data.adif.matchAll(/<CALL:\d+>(\w+)/gi)].map((m: RegExpMatchArray) => m[1]);
      t.same(calls.sort(), reach[name]!.map((id) => `K${loggers.findIndex((l) => logged[l] === id)}LOG`).sort(), name);
    }
  });

  t.test("get: another operator's QSO is 404", async (t) => {
    for (const name of who) {
      for (const logger of loggers) {
        const res = await request(name, `/api/v2/qso/${logged[logger]}`);
        if (reach[name] === null) { refused(t, res, `${name} → ${logger}`); continue; }
        const visible = reach[name]!.includes(logged[logger]);
        t.equal(res.status, visible ? 200 : 404, `${name} → ${logger}`);
        if (visible) t.equal(res.body.data.id, logged[logger]);
        else t.equal(res.body.error.code, 'not_found');
      }
    }
  });

  t.test('confirmation list: only confirmations of reachable QSOs', async (t) => {
    for (const name of who) {
      const res = await request(name, '/api/v2/confirmation');
      if (reach[name] === null) { refused(t, res, name); continue; }
      t.equal(res.status, 200, name);
      t.same(res.body.data.map((c: { qso_id: number }) => c.qso_id).sort((a: number, b: number) => a - b), reach[name], name);
      t.equal(res.body.meta.total, reach[name]!.length, name);
      t.ok(res.body.data.every((c: { type: string }) => c.type === 'LoTW'));
    }
  });

  t.test('club resource: officers only', async (t) => {
    for (const name of who) {
      const res = await request(name, '/api/v2/club');
      if (reach[name] === null) { refused(t, res, name); continue; }
      if (name === 'officer') {
        t.equal(res.status, 200);
        t.same(res.body.data.map((m: { user_callsign: string }) => m.user_callsign), ['DL3MTX', 'DL6MTX', 'DL9MTX']);
      } else {
        t.equal(res.status, 403, name);
        t.equal(res.body.error.code, 'insufficient_club_permission');
        t.same(res.body.error.details, { required_level: 9, granted_level: name === 'member3' ? 3 : 6 });
      }
    }
  });

  t.test("patch: another operator's QSO is 404 and unchanged", async (t) => {
    for (const name of who) {
      for (const logger of loggers) {
        const res = await request(name, `/api/v2/qso/${logged[logger]}`, { method: 'PATCH', json: { comment: `by ${name}` } });
        if (reach[name] === null) { refused(t, res, `${name} → ${logger}`); continue; }
        const visible = reach[name]!.includes(logged[logger]);
        t.equal(res.status, visible ? 200 : 404, `${name} → ${logger}`);
        if (visible) t.equal(res.body.data.comment, `by ${name}`);
      }
    }
    const { rows } = await db.query<{ id: number; comment: string | null }>('SELECT id, comment FROM qso WHERE id = ANY($1) ORDER BY id', [everyone]);
    // The officer patched every QSO last; the revoked member's QSO was only ever touched by the officer.
    t.same(rows.map((r) => r.comment), everyone.map(() => 'by officer'));
  });

  t.test("create: the operator is the acting member's callsign below officer level", async (t) => {
    for (const [index, name] of who.entries()) {
      const res = await request(name, '/api/v2/qso', {
        method: 'POST',
        json: { station_profile_id: club.clubStationId, call: `N${index}NEW`, band: '40m', mode: 'SSB', qso_date: '2024-07-01', time_on: '1200', operator: 'DL0XYZ' },
      });
      if (reach[name] === null) { refused(t, res, name); continue; }
      t.equal(res.status, 201, name);
      const { rows } = await db.query<{ operator: string }>('SELECT operator FROM qso WHERE id = $1', [res.body.data.id]);
      t.equal(rows[0]!.operator, name === 'officer' ? 'DL0XYZ' : members[name].callsign, name);
    }
  });

  t.test("delete: another operator's QSO is 404 and stays; one's own goes", async (t) => {
    for (const name of ['member3', 'member6', 'revoked'] as const) {
      for (const logger of loggers) {
        const res = await request(name, `/api/v2/qso/${logged[logger]}`, { method: 'DELETE' });
        if (reach[name] === null) { refused(t, res, `${name} → ${logger}`); continue; }
        const own = logger === name;
        t.equal(res.status, own ? 204 : 404, `${name} → ${logger}`);
      }
    }
    const officerDelete = await request('officer', `/api/v2/qso/${logged.revoked}`, { method: 'DELETE' });
    t.equal(officerDelete.status, 204, "the officer deletes anyone's QSO");
    const { rows } = await db.query<{ id: number }>('SELECT id FROM qso WHERE id = ANY($1) ORDER BY id', [everyone]);
    t.same(rows.map((r) => r.id), [logged.officer]);
  });
});
