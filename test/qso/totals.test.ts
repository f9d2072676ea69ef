import t from 'tap';
import { Readable } from 'node:stream';
import { startTestServer } from '../helpers/server.js';
import { repeatCheck } from '../helpers/repeatedCheck.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { seedQsos } from '../helpers/qsoRows.js';
import { createStation } from '../../lib/accounts/stations.js';
import { importAdif } from '../../lib/import/pipeline.js';
import { compactQsoCounts } from '../../lib/qso/counts.js';
import { countTableMismatches } from '../helpers/countRecount.js';
import { COUNT_TABLES } from '../../lib/db/countTables.js';

/** Filters as the list applies them, on QSOs (q) and on qso_counts (c); `$1` the stations, `$2` the operator. */
const FILTERS: Array<{ name: string; qso: string; bucket: string }> = [
  { name: 'all', qso: 'true', bucket: 'true' },
  { name: 'band 20m', qso: "band = '20m'", bucket: "band = '20m'" },
  { name: 'band SAT', qso: "prop_mode = 'SAT'", bucket: "prop_mode = 'SAT'" },
  { name: 'mode FT8', qso: "(mode = 'FT8' OR submode = 'FT8')", bucket: "(mode = 'FT8' OR submode = 'FT8')" },
  { name: 'lotw or qsl', qso: "(lotw_qsl_rcvd = 'Y' OR qsl_rcvd = 'Y')", bucket: "(lotw_qsl_rcvd = 'Y' OR qsl_rcvd = 'Y')" },
];

const BANDS = ['20m', '40m', '2m'];
const PREFIXES = ['G', 'DL', 'K', 'JA', 'VK'];
const MODES = ['SSB', 'CW', 'FT8'];

function adif(stationCall: string, round: number, count: number, operator: string): string {
  let text = '';
  for (let i = 0; i < count; i++) {
    // Calls of several DXCC entities (the import resolves each call's).
    const call = `${PREFIXES[i % PREFIXES.length]}${round}X${i}`;
    const band = BANDS[i % 3]!;
    const mode = MODES[(i + round) % 3]!;
    const sat = i % 7 === 0 ? '<prop_mode:3>SAT' : '';
    const qsl = i % 5 === 0 ? `<qsl_rcvd:1>Y<qslrdate:8>2024${String(6 + (i % 3)).padStart(2, '0')}${String(10 + (i % 20))}` : '';
    text += `<call:${call.length}>${call}<band:${band.length}>${band}<mode:${mode.length}>${mode}<qso_date:8>2024050${1 + (round % 9)}<time_on:4>${String(1000 + i).slice(-4)}${sat}${qsl}<operator:${operator.length}>${operator}<station_callsign:${stationCall.length}>${stationCall}<eor>\n`;
  }
  return text;
}

t.test('list totals from the counts stay exact under concurrent writers', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1TOT' });
  const second = await createStation(db, { userId: op.userId, name: 'Portable', callsign: 'DL1TOT', gridsquare: 'JO62QM' });
  const club = await createClub(db, 'DL0TOT');
  const member = await club.memberToken(3, 'DL2MEM');
  const stations = [op.stationId, second];

  /** Every filter × scope, bucket sum against count, in one snapshot. */
  const mismatches = async (): Promise<string[]> => {
    const client = await db.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const found: string[] = [];
      const scopes: Array<[string, number[], string | null]> = [
        ['owner', stations, null], ['portable', [second], null], ['club', [club.clubStationId], null], ['member', [club.clubStationId], member.callsign],
      ];
      for (const [scopeName, ids, operator] of scopes) {
        for (const filter of FILTERS) {
          const scope = `station_id = ANY($1::int[]) AND ($2::text IS NULL OR operator = $2)`;
          const { rows } = await client.query<{ counted: number; summed: number }>(
            `SELECT (SELECT count(*)::int FROM qso WHERE ${scope} AND ${filter.qso}) AS counted,
                    (SELECT coalesce(sum(n), 0)::int FROM qso_counts WHERE ${scope} AND ${filter.bucket}) AS summed`,
            [ids, operator],
          );
          if (rows[0]!.counted !== rows[0]!.summed) found.push(`${scopeName}/${filter.name}: ${rows[0]!.summed} summed, ${rows[0]!.counted} counted`);
        }
        // The unfiltered list's total (its months).
        const scope = `station_id = ANY($1::int[]) AND ($2::text IS NULL OR operator = $2)`;
        const { rows: [whole] } = await client.query<{ counted: number; months: number }>(
          `SELECT (SELECT count(*)::int FROM qso WHERE ${scope}) AS counted,
                  (SELECT coalesce(sum(n), 0)::int FROM qso_month_counts WHERE ${scope}) AS months`,
          [ids, operator],
        );
        if (whole!.counted !== whole!.months) found.push(`${scopeName}/months: ${whole!.months} summed, ${whole!.counted} counted`);
      }
      await client.query('COMMIT');
      return found;
    } finally {
      client.release();
    }
  };

  const checker = repeatCheck(mismatches);

  for (let round = 0; round < 8; round++) {
    await Promise.all([
      importAdif(db, Readable.from([adif('DL1TOT', round, 60, 'DL1TOT')]), { stationId: op.stationId, frequencyUnit: 'MHz' }),
      importAdif(db, Readable.from([adif('DL0TOT', round, 30, round % 2 ? member.callsign : 'DL9OTH')]), { stationId: club.clubStationId, frequencyUnit: 'MHz' }),
      // PATCH moves between locations, confirmations merged in, operators changed, deletes.
      seedQsos(db, stations, `UPDATE qso SET station_id = $2 WHERE id IN (SELECT id FROM qso WHERE station_id = $1 ORDER BY id DESC LIMIT 7)`, [op.stationId, second]),
      seedQsos(db, stations, `UPDATE qso SET lotw_qsl_rcvd = 'Y', lotw_qslrdate = date '2024-01-01' + (id % 90)::int WHERE id IN (SELECT id FROM qso WHERE station_id = ANY($1::int[]) AND lotw_qsl_rcvd IS NULL LIMIT 9)`, [stations]),
      seedQsos(db, [club.clubStationId], `UPDATE qso SET operator = $2 WHERE id IN (SELECT id FROM qso WHERE station_id = $1 AND operator <> $2 LIMIT 4)`, [club.clubStationId, member.callsign]),
      seedQsos(db, stations, `DELETE FROM qso WHERE id IN (SELECT id FROM qso WHERE station_id = $1 ORDER BY id LIMIT 5)`, [second]),
      // Statements of one row, as a single create, DELETE or PATCH writes them: a confirmed QSO
      // stored and the oldest deleted (one delta each, which the trigger appends ungrouped; the
      // statements above group theirs), a band changed (a delta each way, grouped, netting to
      // nothing in the tables without band).
      seedQsos(db, stations, `INSERT INTO qso (station_id, call, time_on, band, mode, operator, lotw_qsl_rcvd, lotw_qslrdate)
        VALUES ($1, 'S' || $2::int || 'SGL', timestamp '2024-05-01' + $2::int * interval '1 hour', '20m', 'CW', 'DL1TOT', 'Y', date '2024-05-02')`, [op.stationId, round]),
      seedQsos(db, stations, 'DELETE FROM qso WHERE id = (SELECT min(id) FROM qso WHERE station_id = $1)', [op.stationId]),
      seedQsos(db, stations, `UPDATE qso SET band = CASE band WHEN '20m' THEN '40m' ELSE '20m' END
        WHERE id = (SELECT max(id) FROM qso WHERE station_id = $1)`, [op.stationId]),
      compactQsoCounts(db, 0),
    ]);
  }
  t.same(await checker.stop(), [], 'every snapshot: bucket sums equal the counts');
  t.same(await mismatches(), [], 'at the end');
  t.same(await countTableMismatches(db), [], 'at the end, every row of every count table');
  await compactQsoCounts(db, 0);
  t.same(await mismatches(), [], 'after compaction');
  t.same(await countTableMismatches(db), [], 'after compaction, every row of every count table');
  const { rows } = await db.query<{ rows: number; buckets: number }>(
    'SELECT count(*)::int AS rows, count(DISTINCT (station_id, operator, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd)) ::int AS buckets FROM qso_counts WHERE station_id = $1',
    [op.stationId],
  );
  t.equal(rows[0]!.rows, rows[0]!.buckets, 'compaction leaves one row per bucket');
  t.equal(await compactQsoCounts(db, 0), 0, 'folded locations are left alone until writers append again');

  // The API answers with those totals.
  const total = async (query: string, token = op.token) => (await server.request(`/api/v2/qso?${query}`, { token })).body.meta.total;
  const count = async (where: string, values: unknown[]) => (await db.query(`SELECT count(*)::int AS n FROM qso WHERE ${where}`, values)).rows[0].n;
  t.equal(await total(`station_id=${op.stationId}`), await count('station_id = $1', [op.stationId]));
  t.equal(await total('band=20m'), await count("station_id = ANY($1) AND band = '20m'", [stations]));
  t.equal(await total('band=SAT&format=json'), await count("station_id = ANY($1) AND prop_mode = 'SAT'", [stations]));
  t.equal(await total('mode=ft8'), await count("station_id = ANY($1) AND (mode = 'FT8' OR submode = 'FT8')", [stations]));
  t.equal(await total('qsl_filter=lotw,qsl'), await count("station_id = ANY($1) AND (lotw_qsl_rcvd = 'Y' OR qsl_rcvd = 'Y')", [stations]));
  t.equal(await total('', member.token), await count('station_id = $1 AND operator = $2', [club.clubStationId, member.callsign]), 'a club member counts their own');
  const confirmations = async (query: string, token = op.token) =>
    (await server.request(`/api/v2/confirmation?${query}`, { token })).body.meta.total;
  t.equal(await confirmations('type=lotw'), await count("station_id = ANY($1) AND lotw_qsl_rcvd = 'Y' AND lotw_qslrdate IS NOT NULL", [stations]));
  t.equal(await confirmations('type=lotw', member.token),
    await count("station_id = $1 AND operator = $2 AND lotw_qsl_rcvd = 'Y' AND lotw_qslrdate IS NOT NULL", [club.clubStationId, member.callsign]),
    "a club member's confirmations are their own");
  t.ok(await total('') > 0);

  // A location emptied: once folded, no count table keeps a bucket of it at zero.
  const { rowCount: emptied } = await seedQsos(db, [second], 'DELETE FROM qso WHERE station_id = $1', [second]);
  t.ok(emptied! > 0, 'the location had QSOs');
  await compactQsoCounts(db, 0);
  t.same(await countTableMismatches(db), [], 'after emptying a location, every row of every count table');
  const tables = COUNT_TABLES.map(({ name }) => name);
  const left = await db.query<{ rows: number }>(`SELECT count(*)::int AS rows FROM (${tables.map((table) => `SELECT n FROM ${table} WHERE station_id = $1`).join(' UNION ALL ')}) c`, [second]);
  t.equal(left.rows[0]!.rows, 0, 'the emptied location has no rows of counts left');
});
