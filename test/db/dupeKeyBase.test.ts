import t from 'tap';
import { testDatabaseAt } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';
import { seedQsos } from '../helpers/qsoRows.js';
import { migrate } from '../../lib/db/migrate.js';
import { SqlParams } from '../../lib/db/sqlParams.js';
import { callCondition } from '../../lib/qso/filters.js';
import { searchPublicLog } from '../../lib/publicLog/repository.js';

/**
 * sql/054 folds the public search's index into the duplicate key (docs/storage.md): on a
 * populated database the duplicate rule holds as before, and a lookup by call (callCondition)
 * and the public search both seek qso_dupe_key instead of walking a location's entries.
 */

const FOLD = '054_dupe_key_holds_base_call';
const INLINED = '055_public_log_base_call_inlined';

t.test('the duplicate key holds the base call: duplicates refused, lookups by call seek it', async (t) => {
  const db = await testDatabaseAt(t, '050_lean_storage');
  const pool = db.pool;
  const { stationId } = await createOperator(pool, { callsign: 'DL1DUP' });
  await seedQsos(pool, [stationId],
    `INSERT INTO qso (station_id, call, time_on, band, mode)
     SELECT $1, (ARRAY['K' || g, 'EA8/G4ABC', 'G4ABC/P', 'G4ABC'])[1 + (g % 40 = 0)::int * (1 + g % 3)],
            timestamp '2015-01-01' + g * interval '7 minutes', '20m', 'CW'
       FROM generate_series(1, 20000) g`, [stationId]);
  const applied = await migrate(pool);
  t.ok(applied.includes(FOLD) && applied.includes(INLINED), 'the migrations applied on a populated database');

  const { rows: indexes } = await pool.query<{ name: string }>(`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'qso'::regclass`);
  t.notOk(indexes.some(({ name }) => name === 'qso_station_public_base_call'), 'the search index is gone');

  // The same key (call, minute, band, mode) once more: refused, as before the fold.
  const again = await seedQsos(pool, [stationId],
    `INSERT INTO qso (station_id, call, time_on, band, mode) SELECT station_id, call, time_on + interval '10 seconds', band, mode
       FROM qso WHERE station_id = $1 AND call = 'G4ABC/P' ON CONFLICT DO NOTHING`, [stationId]);
  t.equal(again.rowCount, 0, 'a duplicate of each stored QSO is not stored');
  const other = await seedQsos(pool, [stationId],
    `INSERT INTO qso (station_id, call, time_on, band, mode) SELECT station_id, call, time_on, '40m', mode
       FROM qso WHERE station_id = $1 AND call = 'G4ABC/P' ON CONFLICT DO NOTHING`, [stationId]);
  t.ok((other.rowCount ?? 0) > 0, 'another band is another QSO');

  await pool.query('ANALYZE qso');
  const params = new SqlParams();
  const condition = callCondition(params.add('G4ABC/P'));
  const plan = (await pool.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN SELECT q.id FROM qso q WHERE q.station_id = ${params.add(stationId)} AND ${condition}`, params.values)).rows.map((r) => r['QUERY PLAN']).join('\n');
  t.match(plan, /Index (Only )?Scan using qso_dupe_key/, 'a lookup by call reads the duplicate key');
  // The base call inlined (sql/055) and, for a constant, computed once: G4ABC.
  t.match(plan, /Index Cond: \(\(station_id = \d+\) AND \(CASE WHEN [\s\S]+ END = 'G4ABC'::text\) AND \(call = 'G4ABC\/P'::text\)\)/,
    'seeking its location and base call');

  const search = (await pool.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN SELECT count(*) FROM qso WHERE station_id = ANY ($1) AND public_log_base_call(call) = public_log_base_call($2)`, [[stationId], 'G4ABC'])).rows.map((r) => r['QUERY PLAN']).join('\n');
  t.match(search, /qso_dupe_key/, 'the public search reads the duplicate key');
  const { slots } = await searchPublicLog(pool, [stationId], 'G4ABC');
  const { rows: [expected] } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM qso WHERE station_id = $1 AND call IN ('G4ABC', 'G4ABC/P', 'EA8/G4ABC')`, [stationId]);
  t.equal(slots.reduce((sum, slot) => sum + slot.qsos, 0), expected!.n, 'the search finds the call and its portable forms');
});

t.test('the base call computed inline gives what sql/046 gave, for every form of call', async (t) => {
  const db = await testDatabaseAt(t, '050_lean_storage');
  const pool = db.pool;
  // sql/046's body, beside the one in force.
  await pool.query(`CREATE FUNCTION base_call_046(call text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT CASE WHEN s ~ '^[^/]+/[^/]+$' AND length(split_part(s, '/', 2)) >= length(split_part(s, '/', 1))
                THEN split_part(s, '/', 2) ELSE s END
      FROM (SELECT regexp_replace(upper(call), '(/(P|M|MM|QRP))+$', '') AS s) AS stripped $$`);
  await migrate(pool);
  const parts = ['', '/', 'g4abc', 'G4ABC', 'EA8', 'DL', 'P', 'M', 'MM', 'QRP', 'qrp', '4', 'VP2E', 'K1ABC', 'ÄÖ', 'A'];
  const { rows } = await pool.query<{ calls: number; differ: string[] }>(
    `WITH calls AS (SELECT concat_ws('/', NULLIF(a, ''), NULLIF(b, ''), NULLIF(c, '')) AS call, a || '/' || b AS slashed
                      FROM unnest($1::text[]) a, unnest($1::text[]) b, unnest($1::text[]) c)
     SELECT count(*)::int AS calls,
            array_agg(call) FILTER (WHERE public_log_base_call(call) IS DISTINCT FROM base_call_046(call)
                                       OR public_log_base_call(slashed) IS DISTINCT FROM base_call_046(slashed)) AS differ
       FROM calls`, [parts]);
  t.ok(rows[0]!.calls > 4000, `${rows[0]!.calls} calls compared`);
  t.same(rows[0]!.differ, null, 'the same base for each');
  t.equal((await pool.query('SELECT public_log_base_call(NULL) AS base')).rows[0].base, null, 'NULL gives NULL');
  const { rows: plan } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN VERBOSE SELECT public_log_base_call(call) FROM qso`);
  t.notMatch(plan.map((r) => r['QUERY PLAN']).join('\n'), /public_log_base_call/, 'inlined: no function call per row');
});
