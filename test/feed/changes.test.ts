import t from 'tap';
import type pg from 'pg';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { createStation } from '../../lib/accounts/stations.js';
import { insertQsos } from '../helpers/qsoRows.js';
import { lotwReport } from '../import/downloadFixtures.js';
import { CursorCodec, type ChangeCursor } from '../../lib/qso/changeCursor.js';
import { serverKey } from '../../lib/db/serverKeys.js';
import { pruneChanges } from '../../lib/qso/changeRetention.js';
import { beginQsoWriteForStations, inQsoTransaction } from '../../lib/qso/writeLock.js';

type Change = { change: 'upsert' | 'delete'; id: number; station_id: number; qso: Record<string, unknown> | null };

async function feed(server: TestServer, token: string, query = ''): Promise<{ status: number; data: Change[]; cursor: string; hasMore: boolean; body: any; link: string | null }> {
  const res = await server.request(`/api/v2/qso/changes${query}`, { token });
  return { status: res.status, data: res.body?.data, cursor: res.body?.meta?.cursor, hasMore: res.body?.meta?.has_more, body: res.body, link: res.headers.get('link') };
}

/**
 * Follows the feed from `cursor` until it says it is up to date; the changes in order. Every
 * page is checked against its `Link` header: present exactly when there is more, naming this
 * request with the cursor meta ends with.
 */
async function follow(server: TestServer, token: string, cursor: string | null, extra = ''): Promise<{ changes: Change[]; cursor: string }> {
  const changes: Change[] = [];
  for (;;) {
    const query = `?per_page=2${extra}${cursor === null ? '' : `&cursor=${cursor}`}`;
    const page = await feed(server, token, query);
    if (page.status !== 200) throw new Error(`feed answered ${page.status}: ${JSON.stringify(page.body)}`);
    if (page.hasMore) {
      const next = new URLSearchParams(query);
      next.set('cursor', page.cursor);
      if (page.link !== `</api/v2/qso/changes?${next.toString()}>; rel="next"`) {
        throw new Error(`Link ${page.link} does not name the next page (cursor ${page.cursor})`);
      }
    } else if (page.link !== null) throw new Error(`Link ${page.link} on the last page`);
    changes.push(...page.data);
    cursor = page.cursor;
    if (!page.hasMore) return { changes, cursor };
  }
}

const qso = (call: string, minute: number) => ({ call, band: '20m', mode: 'CW', qso_date: '2024-05-01', time_on: `10${String(minute).padStart(2, '0')}00` });

t.test('change feed', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1FED' });
  const codec = new CursorCodec(await serverKey(db, 'change_cursor'));
  const encodeCursor = (cursor: ChangeCursor, ownerId = op.userId) => codec.encode(cursor, ownerId);
  const decodeCursor = (text: string): ChangeCursor | null => {
    const decoded = codec.decode(text, op.userId);
    return decoded !== null && 'cursor' in decoded ? decoded.cursor : null;
  };
  const portable = await createStation(db, { userId: op.userId, name: 'Portable', callsign: 'DL1FED/P' });
  const create = async (call: string, minute: number, station = op.stationId): Promise<number> => {
    const res = await server.request('/api/v2/qso', { method: 'POST', token: op.token, json: { station_profile_id: station, ...qso(call, minute) } });
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.text}`);
    return res.body.data.id;
  };

  const a = await create('K1AAA', 1);
  const b = await create('K1BBB', 2);
  const c = await create('K1CCC', 3, portable);

  t.test('from the start: every QSO once, as GET /qso/{id} answers it, then up to date', async (t) => {
    const { changes, cursor } = await follow(server, op.token, null);
    t.same(changes.map((x) => [x.change, x.id]), [['upsert', a], ['upsert', b], ['upsert', c]]);
    const single = await server.request(`/api/v2/qso/${b}`, { token: op.token });
    t.same(changes[1]!.qso, single.body.data);
    t.equal(changes[2]!.station_id, portable);
    const again = await feed(server, op.token, `?cursor=${cursor}`);
    t.same(again.data, [], 'nothing new');
    t.equal(again.hasMore, false);
  });

  t.test('omit_empty: the same changes, each QSO with its set fields only', async (t) => {
    const full = await follow(server, op.token, null);
    const lean = await follow(server, op.token, null, '&omit_empty=true');
    // Both end up to date, at the cut: the log's own writers are done, so the cut is where the
    // database's transactions stood (other databases' tests move it on), the second no earlier.
    const position = (cursor: string) => {
      const { issuedAt, txid, ...rest } = decodeCursor(cursor)!;
      return { rest, txid: BigInt(txid) }; // issuedAt is the second the answer was given
    };
    t.same(position(lean.cursor).rest, position(full.cursor).rest, 'the same place');
    t.ok(position(lean.cursor).txid >= position(full.cursor).txid, 'the later cut is not behind');
    t.same(lean.changes.map((x) => [x.change, x.id, x.station_id]), full.changes.map((x) => [x.change, x.id, x.station_id]));
    for (const [index, change] of full.changes.entries()) {
      const set = Object.fromEntries(Object.entries(change.qso!).filter(([, value]) => value !== null && value !== ''));
      t.same(lean.changes[index]!.qso, set, `QSO ${change.id}: the full object without its unset fields`);
      t.ok(Object.keys(set).length < Object.keys(change.qso!).length, 'and something was left out');
    }
    t.equal((await feed(server, op.token, '?omit_empty=0')).data[0]!.qso!.comment, '', 'false keeps every field');
    const bad = await feed(server, op.token, '?omit_empty=yes');
    t.equal(bad.status, 400);
    t.equal(bad.body.error.details.field, 'omit_empty');
  });

  t.test('edits, moves and deletions come after the cursor, each QSO once in its latest state', async (t) => {
    const { cursor } = await follow(server, op.token, null);
    const { cursor: homeCursor } = await follow(server, op.token, null, `&station_id=${op.stationId}`);
    t.equal((await server.request(`/api/v2/qso/${a}`, { method: 'PATCH', token: op.token, json: { comment: 'first' } })).status, 200);
    t.equal((await server.request(`/api/v2/qso/${a}`, { method: 'PATCH', token: op.token, json: { comment: 'second' } })).status, 200);
    t.equal((await server.request(`/api/v2/qso/${b}`, { method: 'PATCH', token: op.token, json: { station_profile_id: portable } })).status, 200);
    t.equal((await server.request(`/api/v2/qso/${c}`, { method: 'DELETE', token: op.token })).status, 204);
    const d = await create('K1DDD', 4);

    const all = (await follow(server, op.token, cursor)).changes;
    t.same(all.map((x) => [x.change, x.id]), [['upsert', a], ['upsert', b], ['delete', c], ['upsert', d]]);
    t.equal(all[0]!.qso!.comment, 'second', 'the latest state, once');
    t.equal(all[1]!.station_id, portable, 'a move inside the log is an upsert');
    t.same(all[2]!.qso, null);

    const home = (await follow(server, op.token, homeCursor, `&station_id=${op.stationId}`)).changes;
    t.same(home.map((x) => [x.change, x.id]), [['upsert', a], ['delete', b], ['upsert', d]], 'moved out of the filtered location: a delete there');
    t.equal(home[1]!.station_id, op.stationId);
  });

  t.test('a merged confirmation is an upsert in its confirmed state; the same report again adds nothing', async (t) => {
    const f = await create('K1FFF', 6);
    const { cursor } = await follow(server, op.token, null);
    const adif = lotwReport(op.callsign, [{ call: 'K1FFF', date: '20240501', time: '1006', band: '20M', mode: 'CW' }]);
    const apply = async () => {
      const res = await server.request('/api/v2/qso', { method: 'POST', token: op.token, json: { import_type: 'adif', station_profile_id: op.stationId, adif } });
      if (res.status !== 201) throw new Error(`the report answered ${res.status}: ${res.text}`);
      return res.body.data as { confirmed: number; unchanged: number };
    };
    t.match(await apply(), { confirmed: 1, unchanged: 0 });
    const merged = await follow(server, op.token, cursor);
    t.same(merged.changes.map((x) => [x.change, x.id]), [['upsert', f]]);
    t.match(merged.changes[0]!.qso, { lotw_qsl_rcvd: 'Y', lotw_qslrdate: '2024-03-15' }, 'as confirmed');
    t.same(merged.changes[0]!.qso, (await server.request(`/api/v2/qso/${f}`, { token: op.token })).body.data);

    t.match(await apply(), { confirmed: 0, unchanged: 1 });
    t.same((await follow(server, op.token, merged.cursor)).changes, [], 'a report that changes nothing is no change');
  });

  t.test('deleting a location deletes its QSOs for the feed of the whole log', async (t) => {
    const spare = await createStation(db, { userId: op.userId, name: 'Spare', callsign: 'DL1FED/M' });
    const e = await create('K1EEE', 5, spare);
    const { cursor } = await follow(server, op.token, null);
    t.equal((await server.request(`/api/v2/station/${spare}`, { method: 'DELETE', token: op.token })).status, 204);
    t.same((await follow(server, op.token, cursor)).changes.map((x) => [x.change, x.id, x.station_id]), [['delete', e, spare]]);
  });

  t.test('a running writer of the log holds pages back; another user\'s does not', async (t) => {
    const other = await createOperator(db, { callsign: 'DL2OTH' });
    const { cursor } = await follow(server, op.token, null);
    const { cursor: otherCursor } = await follow(server, other.token, null);
    const writer = await db.connect();
    try {
      await writer.query('BEGIN');
      await beginQsoWriteForStations(writer, [op.stationId]);
      const { rows } = await writer.query<{ id: string }>(
        "INSERT INTO qso (station_id, call, time_on, band, mode) VALUES ($1, 'K1SLOW', '2024-05-02 10:00:00', '20m', 'CW') RETURNING id", [op.stationId]);
      const slow = Number(rows[0]!.id);
      const fast = await create('K1FAST', 6);
      const otherId = (await server.request('/api/v2/qso', { method: 'POST', token: other.token, json: { station_profile_id: other.stationId, ...qso('K1OTH', 7) } })).body.data.id;

      const held = await follow(server, op.token, cursor);
      t.same(held.changes, [], 'the later commit waits behind the running writer');
      const sinceId = await server.request(`/api/v2/qso?format=adif&since_id=${slow - 1}`, { token: op.token });
      t.equal(sinceId.body.data.exported, 0, 'since_id pages stop below the running writer\'s ids');
      t.same((await follow(server, other.token, otherCursor)).changes.map((x) => x.id), [otherId], 'another user is not held back');

      await writer.query('COMMIT');
      const after = await follow(server, op.token, held.cursor);
      t.same(after.changes.map((x) => x.id).sort((x, y) => x - y), [slow, fast].sort((x, y) => x - y), 'both once the writer committed');
      const adif = await server.request(`/api/v2/qso?format=adif&since_id=${slow - 1}`, { token: op.token });
      t.equal(adif.body.data.exported, 2);
    } finally {
      writer.release();
    }
  });

  t.test('a read-only request holds back nobody', async (t) => {
    const { cursor } = await follow(server, op.token, null);
    const reader = await db.connect();
    try {
      await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await reader.query('SELECT count(*) FROM qso');
      const f = await create('K1RDR', 8);
      t.same((await follow(server, op.token, cursor)).changes.map((x) => x.id), [f]);
    } finally {
      await reader.query('COMMIT');
      reader.release();
    }
  });

  t.test('bad, foreign and expired cursors', async (t) => {
    const genuine = encodeCursor({ txid: '1', id: 1, kind: 0, horizon: 0, issuedAt: Math.floor(Date.now() / 1000) });
    const [payload, signature] = genuine.split('.') as [string, string];
    const altered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), t: '999999999' })).toString('base64url');
    const forged = `${altered}.${signature}`;
    const otherKey = new CursorCodec(Buffer.alloc(32, 7)).encode({ txid: '1', id: 1, kind: 0, horizon: 0, issuedAt: 1 }, op.userId);
    const foreignOwner = encodeCursor({ txid: '1', id: 1, kind: 0, horizon: 0, issuedAt: 1 }, op.userId + 1);
    t.equal((await feed(server, op.token, `?cursor=${genuine}`)).status, 200, 'the genuine cursor is fine');
    for (const bad of ['x', 'eyJ2IjoxfQ', genuine.slice(2), `${payload}.${signature.slice(1)}`, forged, otherKey, foreignOwner, 'a'.repeat(300)]) {
      const res = await feed(server, op.token, `?cursor=${bad}`);
      t.equal(res.status, 400, bad.slice(0, 20));
      t.equal(res.body.error.code, 'validation_error');
    }
    const old = encodeCursor({ txid: '5', id: 1, kind: 0, horizon: 0, issuedAt: Math.floor(Date.now() / 1000) - 91 * 86_400 });
    const expired = await feed(server, op.token, `?cursor=${old}`);
    t.equal(expired.status, 410);
    t.equal(expired.body.error.code, 'cursor_expired');
    // An unsigned cursor of the previous version: trusted by no one, so the client starts over.
    const unsigned = Buffer.from(JSON.stringify({ v: 1, t: '5', i: 1, k: 0, h: 0, s: Math.floor(Date.now() / 1000) })).toString('base64url');
    const legacy = await feed(server, op.token, `?cursor=${unsigned}`);
    t.equal(legacy.status, 410, 'an unsigned cursor of the previous version: start over');
    t.equal(legacy.body.error.code, 'cursor_expired');
    t.equal((await feed(server, op.token, '?per_page=5001')).status, 400);
    t.equal((await feed(server, op.token, '?per_page=0')).status, 400);
    const other = await createOperator(db, { callsign: 'DL3FOR' });
    t.equal((await feed(server, op.token, `?station_id=${other.stationId}`)).status, 403);
    t.equal((await server.request('/api/v2/qso/changes', { method: 'POST', token: op.token, json: {} })).status, 405);
    t.equal((await server.request('/api/v2/qso/changes')).status, 401);
  });

  t.test('retention: tombstones go after change_retention_days; a cursor behind them gets 410', async (t) => {
    const g = await create('K1GGG', 9);
    const { cursor: behind } = await follow(server, op.token, null);
    t.equal((await server.request(`/api/v2/qso/${g}`, { method: 'DELETE', token: op.token })).status, 204);
    await db.query("UPDATE qso_deletions SET deleted_at = now() - interval '100 days' WHERE qso_id = $1", [g]);
    t.ok((await pruneChanges(db, 90)) >= 1);
    const res = await feed(server, op.token, `?cursor=${behind}`);
    t.equal(res.status, 410, 'the deletion it would need is gone');
    const fresh = await follow(server, op.token, null);
    t.notOk(fresh.changes.some((x) => x.id === g), 'a full copy does not have it');
    t.equal((await feed(server, op.token, `?cursor=${fresh.cursor}`)).status, 200, 'a cursor issued after the pruning is fine');
    t.equal(decodeCursor(fresh.cursor)!.horizon > 0, true);
  });

  t.test("retention per owner: pruning another user's deletions expires none of this user's cursors", async (t) => {
    const bob = await createOperator(db, { callsign: 'DL2BOB' });
    const horizon = async (userId: number) => Number((await db.query<{ h: string | null }>(
      'SELECT (SELECT pruned_through::text FROM qso_change_owner_horizon WHERE user_id = $1) AS h', [userId])).rows[0]!.h ?? 0);
    const aliceBefore = await horizon(op.userId);
    const { cursor: alice } = await follow(server, op.token, null);
    const [gone] = await insertQsos(db, [{ station_id: bob.stationId, call: 'K1BOB', time_on: '2024-01-01 00:00:00' }]);
    t.equal((await server.request(`/api/v2/qso/${gone}`, { method: 'DELETE', token: bob.token })).status, 204);
    await db.query("UPDATE qso_deletions SET deleted_at = now() - interval '100 days' WHERE qso_id = $1", [gone]);
    t.ok((await pruneChanges(db, 90)) >= 1, "Bob's tombstone is removed");
    t.ok((await horizon(bob.userId)) > 0, "Bob's horizon moved");
    t.equal(await horizon(op.userId), aliceBefore, "Alice's did not");
    const res = await feed(server, op.token, `?cursor=${alice}`);
    t.equal(res.status, 200, "Alice's cursor from before the pruning still works");
  });

  t.test('retention pruning while a page is read: the deletion is delivered or the cursor refused, never silently missed', async (t) => {
    const h = await create('K1HHH', 10);
    const { cursor: behind } = await follow(server, op.token, null);
    t.equal((await server.request(`/api/v2/qso/${h}`, { method: 'DELETE', token: op.token })).status, 204);
    await db.query("UPDATE qso_deletions SET deleted_at = now() - interval '100 days' WHERE qso_id = $1", [h]);
    // The pruning holds the tombstones' table while the page is asked for, and commits once the
    // page's statement waits for it: between the feed's look at the horizon and its page.
    const pruner = await db.connect();
    try {
      await pruner.query('BEGIN');
      await pruner.query('LOCK TABLE qso_deletions IN ACCESS EXCLUSIVE MODE');
      const page = feed(server, op.token, `?cursor=${behind}`);
      for (let waited = 0; ; waited += 10) {
        const { rows } = await db.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1", [(pruner as unknown as { processID: number }).processID]);
        if (rows.length > 0) break;
        if (waited > 10_000) throw new Error('the page never waited for the pruning');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      t.ok((await pruneChanges(pruner, 90)) >= 1);
      await pruner.query('COMMIT');
      const res = await page;
      if (res.status === 200) t.ok(res.data.some((x) => x.change === 'delete' && x.id === h), 'answered from before the pruning: the deletion is there');
      else t.equal(res.status, 410, 'or refused');
    } finally {
      await pruner.query('ROLLBACK').catch(() => undefined);
      pruner.release();
    }
  });

  t.test('OpenAPI documents the feed', async (t) => {
    const doc = (await server.request('/openapi.json')).body;
    t.ok(doc.paths['/api/v2/qso/changes']?.get);
  });
});

t.test('club members below officer level follow only their own QSOs', async (t) => {
  const server = await startTestServer(t);
  const db: pg.Pool = server.db.pool;
  const club = await createClub(db);
  const member = await club.memberToken(3, 'DL5MEM');
  const officer = await club.memberToken(9, 'DL5OFF');
  const [mine, theirs] = await insertQsos(db, [
    { station_id: club.clubStationId, call: 'K1MIN', time_on: '2024-01-01 00:00:00', operator: 'DL5MEM' },
    { station_id: club.clubStationId, call: 'K1THR', time_on: '2024-01-01 00:01:00', operator: 'DL9XXX' },
  ]);
  const start = await follow(server, member.token, null);
  t.same(start.changes.map((x) => x.id), [mine]);
  t.same((await follow(server, officer.token, null)).changes.map((x) => x.id), [mine, theirs]);
  // No v2 door edits the operator today; any writer that does must take the QSO out of the member's feed.
  await inQsoTransaction(db, [club.clubId], (client) => client.query("UPDATE qso SET operator = 'DL9XXX' WHERE id = $1", [mine]));
  t.equal((await server.request(`/api/v2/qso/${theirs}`, { method: 'DELETE', token: officer.token })).status, 204);
  t.same((await follow(server, member.token, start.cursor)).changes.map((x) => [x.change, x.id]), [['delete', mine]],
    'given to another operator: gone for the member; a deletion of another operator\'s QSO is not shown');
});
