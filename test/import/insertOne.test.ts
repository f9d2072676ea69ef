import t from 'tap';
import { insertOneQso } from '../../lib/import/insertOne.js';
import { InsertBatcher } from '../../lib/import/insertBatcher.js';
import { loadTargetStation } from '../../lib/accounts/targetStations.js';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';

t.test('single QSO insert', async (t) => {
  const db = await testDatabase(t);
  const pool = db.pool;
  const inserts = new InsertBatcher(pool);
  const op = await createOperator(pool, { callsign: 'DL1ONE' });
  const station = await loadTargetStation(pool, op.stationId);
  const options = { frequencyUnit: 'Hz' as const };
  const record = { call: 'ea5abc', qso_date: '2024-03-01', time_on: '10:15:20', band: '20m', mode: 'FT4', freq: '14080000', app_x_y: 'kept' };

  const created = await insertOneQso(inserts, record, station, options);
  if (!('id' in created)) throw new Error(`not stored: ${JSON.stringify(created)}`);
  const { rows } = await pool.query('SELECT call, time_on::text, band, mode, submode, freq, dxcc, country, station_callsign, extra FROM qso WHERE id = $1', [created.id]);
  t.same(rows, [{
    call: 'EA5ABC', time_on: '2024-03-01 10:15:20', band: '20m', mode: 'MFSK', submode: 'FT4', freq: 14080000, dxcc: 281, country: 'Spain',
    station_callsign: 'DL1ONE', extra: { app_x_y: 'kept' },
  }]);

  t.same(
    await insertOneQso(inserts, { ...record, time_on: '1015', mode: 'MFSK', submode: 'FT4', freq: null }, station, options),
    { duplicateOf: created.id },
    'same minute, same main mode: the stored twin is named',
  );
  t.same(await insertOneQso(inserts, { call: 'EA5ABC', qso_date: '2024-03-01' }, station, options), { rejected: ['TIME_ON is missing'] });
  t.same(
    await insertOneQso(inserts, { ...record, station_callsign: 'DL9XX' }, station, { ...options, checkStationCallsign: true }),
    { rejected: ["STATION_CALLSIGN DL9XX differs from the station location's callsign DL1ONE"] },
  );
  const forced = await insertOneQso(inserts, { ...record, band: '40m', freq: null, operator: 'DL1OFF' }, station, { ...options, operator: 'DL1MBR' });
  if (!('id' in forced)) throw new Error('not stored');
  const { rows: operators } = await pool.query('SELECT operator FROM qso WHERE id = $1', [forced.id]);
  t.same(operators, [{ operator: 'DL1MBR' }]);

  t.test('a QSO write that does not declare itself is refused, also as a single statement', async (t) => {
    await t.rejects(
      pool.query(`INSERT INTO qso (station_id, call, time_on, time_off, band, mode) VALUES ($1, 'F5UNDECL', now(), now(), '20m', 'CW')`, [op.stationId]),
      /must call qso_write_begin\(\) first/,
    );
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM qso WHERE call = 'F5UNDECL'");
    t.same(rows, [{ n: 0 }], 'nothing of it stored');
  });

  t.test('a twin committed while the INSERT waits is found by a second look', async (t) => {
    const twin = { call: 'F5RACE', qso_date: '2024-03-02', time_on: '0800', band: '40m', mode: 'CW' };
    const other = await pool.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT qso_write_begin(ARRAY[$1]::int[])', [op.userId]);
      await other.query(
        `INSERT INTO qso (station_id, call, time_on, time_off, band, mode) VALUES ($1, 'F5RACE', '2024-03-02 08:00:30', '2024-03-02 08:00:30', '40m', 'CW')`,
        [op.stationId],
      );
      const inserting = insertOneQso(inserts, twin, station, options); // waits on the uncommitted twin
      // The one statement has declared itself a writer of this owner before it wrote: the feed's
      // readers see it in pg_locks while it waits (after 50 ms its batch gives up its turn and it
      // waits again alone: looked for until seen, for at most 5 s).
      let writers: Array<{ n: number }> = [];
      for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
        ({ rows: writers } = await pool.query<{ n: number }>(
          `SELECT count(DISTINCT l.pid)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.classid = x'510b'::int::oid AND l.objid = $1::int::oid AND l.objsubid = 2
              AND a.query LIKE '%qso_writer%' AND a.state = 'active' AND a.wait_event_type = 'Lock' AND l.pid <> pg_backend_pid()`,
          [op.userId],
        ));
        if (writers[0]!.n > 0) break;
      }
      // One backend, or for a moment two: the batch's, giving up after 50 ms, and its caller's again.
      t.ok(writers[0]!.n >= 1, 'the waiting insert holds the owner\'s writer lock');
      await other.query('COMMIT');
      const { rows: stored } = await pool.query("SELECT id FROM qso WHERE call = 'F5RACE'");
      t.same(await inserting, { duplicateOf: stored[0].id });
    } finally {
      other.release();
    }
  });
});
