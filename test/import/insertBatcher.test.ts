import t from 'tap';
import { normalizeRecord } from '../../lib/adif/normalize.js';
import { QueryScope, runInQueryScope } from '../../lib/db/queryScope.js';
import { fillDxcc, fillStation } from '../../lib/import/enrich.js';
import { loadTargetStation, type TargetStation } from '../../lib/accounts/targetStations.js';
import { InsertBatcher, type InsertRequest, type RowOutcome } from '../../lib/import/insertBatcher.js';
import { INSERT_COLUMNS, newRow, rowValues } from '../../lib/import/rowValues.js';
import { Metrics } from '../../lib/metrics.js';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';

/** A row as a single create stores it: normalised, DXCC and station filled. */
function row(station: TargetStation, call: string, time = '1200', band = '20m'): string[] {
  const { qso } = normalizeRecord({ call, qso_date: '20240301', time_on: time, band, mode: 'CW' }, { frequencyUnit: 'MHz' });
  fillDxcc(qso!);
  fillStation(qso!, station, null, null);
  return rowValues(qso!, newRow()) as string[];
}

function request(station: TargetStation, rows: string[][], returnRows = false): InsertRequest {
  return { stationId: station.id, ownerId: station.userId, rows, returnRows };
}

const storedId = (outcome: RowOutcome | undefined): number => {
  if (outcome === undefined || !('id' in outcome)) throw new Error(`not stored: ${JSON.stringify(outcome)}`);
  return outcome.id;
};

t.test('small inserts stored together', async (t) => {
  const db = await testDatabase(t);
  const pool = db.pool;
  const a = await loadTargetStation(pool, (await createOperator(pool)).stationId);
  const b = await loadTargetStation(pool, (await createOperator(pool)).stationId);
  const txids = async (ids: number[]) =>
    (await pool.query<{ n: number }>('SELECT count(DISTINCT txid)::int AS n FROM qso WHERE id = ANY($1::bigint[])', [ids])).rows[0]!.n;

  t.test('callers arriving while statements run share one; outcomes reach the right caller', async (t) => {
    const metrics = new Metrics();
    const inserts = new InsertBatcher(pool, metrics);
    const [stored] = await inserts.insert(request(a, [row(a, 'DL1OLD')]));
    // The first leaves at once; the rest, handed in while it runs, make one batch.
    const calls = [
      request(a, [row(a, 'DL1A')], true), request(b, [row(b, 'DL1B')]),
      request(a, [row(a, 'DL2A'), row(a, 'DL2A', '120030'), row(a, 'DL2B')], true),
      request(b, [row(b, 'DL3B')], true),
      request(a, [row(a, 'DL1OLD')]), // a twin of a stored QSO
      request(a, [row(a, 'DL2B', '1200')]), // a twin stored by the caller before it in this batch
      request(b, [row(b, 'DL2B')]), // the same key in another location: no twin
    ];
    const outcomes = await Promise.all(calls.map((call) => inserts.insert(call)));
    const [, , mixed, ofB, old, twin, other] = outcomes;
    t.match(outcomes[0]![0], { id: Number, row: { call: 'DL1A', station_id: a.id, band: '20m', mode: 'CW', time_on: '2024-03-01 12:00:00' } }, 'the stored row, when asked for');
    t.same(outcomes[1], [{ id: storedId(outcomes[1]![0]), row: null }], 'no row when none is asked for');
    t.same(mixed!.map((outcome) => 'id' in outcome), [true, false, true], 'one caller\'s same-minute twin is skipped');
    t.same(mixed![1], { duplicateOf: storedId(mixed![0]) });
    t.equal((mixed![2] as { row: { call: string } }).row.call, 'DL2B');
    t.equal((ofB![0] as { row: { station_id: number } }).row.station_id, b.id);
    t.same(old, [{ duplicateOf: storedId(stored) }], 'a stored twin is named');
    t.same(twin, [{ duplicateOf: storedId(mixed![2]) }], 'a twin stored by an earlier caller of the same batch is named');
    t.ok('id' in other![0]!, 'the same key in another location is no duplicate');
    const batched = [...outcomes[1]!, ...mixed!, ...ofB!, ...other!].flatMap((outcome) => ('id' in outcome ? [outcome.id] : []));
    t.equal(await txids(batched), 1, 'the callers handed in meanwhile went into one statement');
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = ANY($1::int[])', [[a.id, b.id]]);
    t.equal(rows[0]!.n, 7, 'nothing stored twice, nothing lost');
    t.match(metrics.render(), /logbook_small_insert_statements_total\{kind="batch"\} 3\n/, 'three statements: the first, the first caller, the rest');
    t.match(metrics.render(), /logbook_small_insert_rows_total\{kind="batch"\} 10\n/);
  });

  t.test('a caller whose rows break the statement fails alone', async (t) => {
    const metrics = new Metrics();
    const inserts = new InsertBatcher(pool, metrics);
    const broken = row(a, 'DL9BAD');
    broken[INSERT_COLUMNS.findIndex((column) => column.name === 'cqz')] = 'fourteen';
    const calls = [
      request(a, [row(a, 'DL5A')]), request(a, [row(a, 'DL5B')]),
      request(a, [row(a, 'DL5C')]), request(b, [row(b, 'DL5D')]), request(a, [broken]), request(b, [row(b, 'DL5E')]),
    ];
    const settled = await Promise.allSettled(calls.map((call) => inserts.insert(call)));
    t.same(settled.map((result) => result.status), ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    t.match((settled[4] as PromiseRejectedResult).reason, { message: /invalid input syntax for type integer/ });
    const { rows } = await pool.query<{ call: string }>("SELECT call FROM qso WHERE call LIKE 'DL5%' OR call = 'DL9BAD' ORDER BY call");
    t.same(rows.map((stored) => stored.call), ['DL5A', 'DL5B', 'DL5C', 'DL5D', 'DL5E']);
    t.match(metrics.render(), /logbook_small_insert_statements_total\{kind="alone"\} 5\n/, 'the failed batch\'s five callers went again one by one');
  });

  t.test('a caller whose row waits for an uncommitted twin holds up nobody else', async (t) => {
    const inserts = new InsertBatcher(pool);
    const twin = row(a, 'DL7WAIT');
    const other = await pool.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT qso_write_begin(ARRAY[$1]::int[])', [a.userId]);
      await other.query(`INSERT INTO qso (station_id, call, time_on, time_off, band, mode) VALUES ($1, 'DL7WAIT', '2024-03-01 12:00:00', '2024-03-01 12:00:00', '20m', 'CW')`, [a.id]);
      // Alone first, then in a batch with others behind it: both times the others go on.
      const waitingAlone = inserts.insert(request(a, [twin]));
      const behind = [inserts.insert(request(a, [row(a, 'DL7A')])), inserts.insert(request(b, [row(b, 'DL7B')]))];
      const waitingInBatch = inserts.insert(request(a, [twin]));
      const besideIt = inserts.insert(request(b, [row(b, 'DL7C')]));
      let settled = false;
      void Promise.all([waitingAlone, waitingInBatch]).finally(() => (settled = true));
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('held up behind the waiting row')), 5000));
      const others = await Promise.race([Promise.all([...behind, besideIt]), timeout]);
      t.same(others.map((outcome) => 'id' in outcome[0]!), [true, true, true], 'the others are stored while the twin is uncommitted');
      t.notOk(settled, 'the callers of the twin still wait');
      await other.query('COMMIT');
      const { rows } = await pool.query<{ id: string }>("SELECT id FROM qso WHERE call = 'DL7WAIT'");
      t.same(await waitingAlone, [{ duplicateOf: Number(rows[0]!.id) }]);
      t.same(await waitingInBatch, [{ duplicateOf: Number(rows[0]!.id) }]);
    } finally {
      other.release();
    }
  });

  t.test('a batch started from an abandoned request still stores the others\' rows', async (t) => {
    const inserts = new InsertBatcher(pool);
    const gone = new QueryScope();
    gone.abandoned = true; // its client went away: its own check-outs are refused
    await t.rejects(runInQueryScope(gone, () => pool.query('SELECT 1')), 'the abandoned scope refuses connections');
    const outcomes = await runInQueryScope(gone, () => Promise.all([
      inserts.insert(request(a, [row(a, 'DL6A')])), inserts.insert(request(a, [row(a, 'DL6B')])), inserts.insert(request(b, [row(b, 'DL6C')])),
    ]));
    t.same(outcomes.map((outcome) => 'id' in outcome[0]!), [true, true, true]);
  });

  t.test('many concurrent callers with twins across callers: each key stored once, every twin named', async (t) => {
    const inserts = new InsertBatcher(pool);
    const calls = Array.from({ length: 120 }, (_, i) => request(i % 3 === 0 ? b : a, [row(i % 3 === 0 ? b : a, `DL${i % 40}TW`)]));
    const outcomes = (await Promise.all(calls.map((call) => inserts.insert(call)))).map((rows) => rows[0]!);
    const { rows } = await pool.query<{ id: string; station_id: number; call: string }>("SELECT id, station_id, call FROM qso WHERE call LIKE '%TW'");
    const byKey = new Map(rows.map((stored) => [`${stored.station_id}/${stored.call}`, Number(stored.id)]));
    t.equal(rows.length, byKey.size, 'no key stored twice');
    outcomes.forEach((outcome, i) => {
      const key = `${calls[i]!.stationId}/DL${i % 40}TW`;
      const id = 'id' in outcome ? outcome.id : outcome.duplicateOf;
      if (id !== byKey.get(key)) t.fail(`caller ${i} was told ${JSON.stringify(outcome)}, stored ${byKey.get(key)}`);
    });
    t.equal(outcomes.filter((outcome) => 'id' in outcome).length, byKey.size, 'exactly one caller stored each key');
    t.ok(await txids([...byKey.values()]) < byKey.size, 'stored in fewer statements than callers');
  });
});
