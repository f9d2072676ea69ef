import t from 'tap';
import type pg from 'pg';
import { testDatabase } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';
import { insertQsos, seedQsos } from '../helpers/qsoRows.js';
import { createStation } from '../../lib/accounts/stations.js';
import { createLogbook } from '../../lib/accounts/logbooks.js';
import { inStationQsoTransaction } from '../../lib/qso/writeLock.js';
import { CHANGES_LISTED } from '../../lib/publicLog/repository.js';
import { PublicLogCache, type CachedAnswer } from '../../lib/publicLog/cache.js';
import type { PublicSearch } from '../../lib/publicLog/present.js';

/** The pool itself, counting the search reads sent through it (the statement is named public_log_search). */
function countingSearches(pool: pg.Pool): { pool: pg.Pool; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(pool, {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
      return (...args: unknown[]) => {
        if ((args[0] as { name?: string }).name === 'public_log_search') reads++;
        return (target.query as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
  return { pool: counted, reads: () => reads };
}

const slotsOf = (answer: CachedAnswer | null): string[] =>
  (JSON.parse(answer!.body) as { data: PublicSearch }).data.slots.map((s) => `${s.band} ${s.mode} ${s.qsos}`);

t.test('a search answer survives the QSOs that cannot change it, and only those', async (t) => {
  const db = (await testDatabase(t)).pool;
  const op = await createOperator(db, { callsign: 'VK0SRV' });
  const elsewhere = await createStation(db, { userId: op.userId, name: 'Not published', callsign: 'VK0OTH' });
  const { slug } = await createLogbook(db, { userId: op.userId, name: 'Live', stationIds: [op.stationId], publication: { public: true } });
  const { pool, reads } = countingSearches(db);
  const cache = new PublicLogCache(pool);
  const write = (sql: string, values: unknown[]) => inStationQsoTransaction(db, [op.stationId], (client) => client.query(sql, values));
  const time = '2026-01-01 10:00:00';
  const [first] = await insertQsos(db, [{ station_id: op.stationId, call: 'G4ABC', time_on: time, band: '20m', mode: 'CW' }]);

  const base = await cache.search(slug, 'G4ABC');
  const exact = await cache.search(slug, 'G4ABC/P');
  const page = await cache.page(slug);
  t.same(slotsOf(base), ['20m CW 1']);
  t.same(slotsOf(exact), []);
  t.equal(reads(), 2);
  t.equal(await cache.search(slug, 'G4ABC'), base, 'unchanged: the same answer');

  /** After `change`: whether the next answers for G4ABC and G4ABC/P were read again, and G4ABC's slots. */
  const after = async (change: () => Promise<unknown>) => {
    const before = reads();
    const [previousBase, previousExact] = [await cache.search(slug, 'G4ABC'), await cache.search(slug, 'G4ABC/P')];
    t.equal(reads(), before, 'asked again before the change: from memory');
    await change();
    const [nextBase, nextExact] = [await cache.search(slug, 'G4ABC'), await cache.search(slug, 'G4ABC/P')];
    return { base: nextBase !== previousBase, exact: nextExact !== previousExact, slots: slotsOf(nextBase), read: reads() - before };
  };

  t.same(await after(() => insertQsos(db, [{ station_id: op.stationId, call: 'K1XYZ', time_on: time }])), { base: false, exact: false, slots: ['20m CW 1'], read: 0 },
    'an unrelated QSO keeps both answers: the database is not asked');
  t.not(await cache.page(slug), page, 'the page is remade on any change');
  t.same(await after(() => insertQsos(db, [{ station_id: elsewhere, call: 'G4ABC', time_on: time }])), { base: false, exact: false, slots: ['20m CW 1'], read: 0 },
    'the call logged on a location outside the logbook keeps them');

  t.same(await after(() => insertQsos(db, [{ station_id: op.stationId, call: 'g4abc/p', time_on: time, band: '40m', mode: 'CW' }])),
    { base: true, exact: true, slots: ['20m CW 1', '40m CW 1'], read: 2 }, 'G4ABC/P logged: both answers are new');
  t.same(slotsOf(await cache.search(slug, 'G4ABC/P')), ['40m CW 1']);
  t.same(await after(() => insertQsos(db, [{ station_id: op.stationId, call: 'EA8/G4ABC', time_on: time, band: '15m', mode: 'SSB' }])),
    { base: true, exact: true, slots: ['15m SSB 1', '20m CW 1', '40m CW 1'], read: 2 }, 'EA8/G4ABC logged: its base is G4ABC');
  const [other] = await insertQsos(db, [{ station_id: op.stationId, call: 'DL1AA', time_on: time, band: '10m', mode: 'FM' }]);
  t.same(await after(() => write(`UPDATE qso SET call = 'G4ABC' WHERE id = $1`, [other])),
    { base: true, exact: true, slots: ['10m FM 1', '15m SSB 1', '20m CW 1', '40m CW 1'], read: 2 }, 'a call edited to G4ABC');
  t.same(await after(() => write(`UPDATE qso SET call = 'DL1AA' WHERE id = $1`, [other])),
    { base: true, exact: false, slots: ['15m SSB 1', '20m CW 1', '40m CW 1'], read: 1 },
    'a call edited away from G4ABC: caught by its id; G4ABC/P never counted it');
  t.same(await after(() => write('DELETE FROM qso WHERE id = $1', [first])),
    { base: true, exact: false, slots: ['15m SSB 1', '40m CW 1'], read: 1 }, 'a deletion: caught by its tombstone');
  t.same(await after(() => write(`UPDATE qso SET station_id = $1 WHERE call = 'EA8/G4ABC'`, [elsewhere])),
    { base: true, exact: false, slots: ['40m CW 1'], read: 1 }, 'a QSO moved to a location outside the logbook');
  t.same(await after(() => write(`UPDATE qso SET band = '80m' WHERE upper(call) = 'G4ABC/P'`, [])),
    { base: true, exact: true, slots: ['80m CW 1'], read: 2 }, 'a counted QSO edited');

  t.same(await after(() => seedQsos(db, [op.stationId], `INSERT INTO qso (station_id, call, time_on, band, mode)
      SELECT $1, 'W' || n || 'LOT', $2, '20m', 'CW' FROM generate_series(1, $3::int) n`, [op.stationId, time, CHANGES_LISTED + 1])),
    { base: true, exact: true, slots: ['80m CW 1'], read: 2 }, 'more changed rows than are listed: every answer is remade');
  t.same(await after(async () => {
    await db.query('UPDATE logbooks SET public_show_times = true WHERE slug = $1', [slug]);
  }), { base: true, exact: true, slots: ['80m CW 1'], read: 2 }, 'new settings: every answer is remade');
});

t.test('writers and searchers racing: the answer asked after a write committed always reflects it', async (t) => {
  const db = (await testDatabase(t)).pool;
  const op = await createOperator(db, { callsign: 'VK0RCE' });
  const elsewhere = await createStation(db, { userId: op.userId, name: 'Not published', callsign: 'VK0OTX' });
  const { slug } = await createLogbook(db, { userId: op.userId, name: 'Race', stationIds: [op.stationId], publication: { public: true } });
  const cache = new PublicLogCache(db);
  // Each searched call, and what it finds (docs/public-log.md, "The matching rule").
  const base: Record<string, string> = { 'G4ABC': 'G4ABC', 'G4ABC/P': 'G4ABC', 'EA8/G4ABC': 'G4ABC', 'K1XYZ': 'K1XYZ', 'K1XYZ/M': 'K1XYZ', 'DL1AA': 'DL1AA' };
  const calls = Object.keys(base);
  const finds = (search: string, logged: string | null) => logged !== null && (search.includes('/') ? logged === search : base[logged] === search);
  const modes = async (call: string) => new Set((JSON.parse((await cache.search(slug, call))!.body) as { data: PublicSearch }).data.slots.map((s) => s.mode));
  const wrong: string[] = [];
  let checked = 0;

  /** After a write committed: every call's next answer holds the QSO's slot exactly when the call finds `logged`. */
  const expect = async (mode: string, logged: string | null, what: string) => {
    for (const call of calls) {
      const found = (await modes(call)).has(mode);
      checked++;
      if (found !== finds(call, logged)) wrong.push(`${what}: ${call} ${found ? 'still finds' : 'misses'} ${mode} (${logged ?? 'gone'})`);
    }
  };
  const write = (sql: string, values: unknown[]) => inStationQsoTransaction(db, [op.stationId, elsewhere], (client) => client.query<{ id: number }>(sql, values));

  let writing = true;
  // Searchers keep every call's answer ready in each generation, so that answers are carried over.
  const searchers = Array.from({ length: 3 }, async (_, s) => {
    for (let i = s; writing; i++) await cache.search(slug, calls[i % calls.length]!);
  });
  // Each writer's QSOs have a mode of their own (one slot each), so writers racing cannot mask each other.
  const writers = Array.from({ length: 4 }, async (_, w) => {
    for (let n = 0; n < 8; n++) {
      const mode = `W${w}Q${n}`;
      let logged = calls[(w + n) % calls.length]!;
      const [row] = (await write(`INSERT INTO qso (station_id, call, time_on, band, mode) VALUES ($1, $2, '2026-01-01 10:00', '20m', $3) RETURNING id`,
        [op.stationId, logged, mode])).rows;
      await expect(mode, logged, 'logged');
      logged = calls[(w + n + 1 + (n % 3)) % calls.length]!;
      await write('UPDATE qso SET call = $2 WHERE id = $1', [row!.id, logged]);
      await expect(mode, logged, 'edited');
      if (n % 2 === 0) await write('DELETE FROM qso WHERE id = $1', [row!.id]);
      else await write('UPDATE qso SET station_id = $2 WHERE id = $1', [row!.id, elsewhere]);
      await expect(mode, null, n % 2 === 0 ? 'deleted' : 'moved away');
    }
  });
  await Promise.all(writers);
  writing = false;
  await Promise.all(searchers);
  t.equal(checked, 4 * 8 * 3 * calls.length);
  t.same(wrong, [], 'no answer missed a committed write');
});
