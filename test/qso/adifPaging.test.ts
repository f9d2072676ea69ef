import t from 'tap';
import { Readable } from 'node:stream';
import { startTestServer } from '../helpers/server.js';
import { repeatCheck } from '../helpers/repeatedCheck.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { seedQsos } from '../helpers/qsoRows.js';
import { createStation } from '../../lib/accounts/stations.js';
import { exportAdifRecords } from '../../lib/export/query.js';
import { importAdif } from '../../lib/import/pipeline.js';
import { compactQsoCounts, ID_BLOCK } from '../../lib/qso/counts.js';
import { pageSql, withItsCut } from '../../lib/qso/list/query.js';
import { parseListQuery } from '../../lib/http/v2/resources/qso/listParams.js';
import { countTotalBindingPage } from '../../lib/qso/list/total.js';
import type { Principal } from '../../lib/http/v2/principal.js';
import type { RequestContext } from '../../lib/http/v2/resource.js';

/** `count` QSOs into a location, one statement, distinct calls, bands and modes varied. */
function seedSql(count: number): string {
  return `INSERT INTO qso (station_id, call, time_on, band, mode, submode, operator, lotw_qsl_rcvd)
          SELECT $1, 'K' || g || $2, timestamp '2020-01-01' + g * interval '7 minutes',
                 (ARRAY['20m','40m','2m'])[1 + g % 3], (ARRAY['SSB','CW','MFSK'])[1 + g % 3],
                 CASE WHEN g % 3 = 0 THEN 'USB' WHEN g % 3 = 2 THEN 'FT4' END, $3, CASE WHEN g % 4 = 0 THEN 'Y' END
            FROM generate_series(1, ${count}) g`;
}

/** The records of an ADIF document after its header. */
function records(adif: string | null): string {
  return adif === null ? '' : adif.slice(adif.indexOf('<EOH>') + '<EOH>'.length).replace(/^\s+/, '');
}

t.test('ADIF pages by since_id: streamed records equal to the export, exact totals from id blocks', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1PAG' });
  const portable = await createStation(db, { userId: op.userId, name: 'Portable', callsign: 'DL1PAG/P', gridsquare: 'JO62QM' });
  const other = await createOperator(db, { callsign: 'DL2OTH' });
  // Rows of both users interleaved over several id blocks, with a gap of unused ids in between.
  for (let round = 0; round < 3; round++) {
    await seedQsos(db, [op.stationId], seedSql(2000), [op.stationId, `R${round}H`, 'DL1PAG']);
    await seedQsos(db, [other.stationId], seedSql(1500), [other.stationId, `R${round}O`, 'DL2OTH']);
    await seedQsos(db, [portable], seedSql(700), [portable, `R${round}P`, 'DL1PAG']);
    await db.query(`SELECT setval(pg_get_serial_sequence('qso', 'id'), nextval(pg_get_serial_sequence('qso', 'id')) + ${ID_BLOCK + 123})`);
  }
  await compactQsoCounts(db, 0);
  const all = 3 * 2700;

  let exported = '';
  for await (const { adif } of exportAdifRecords(db, { stationIds: [op.stationId, portable] })) exported += adif;

  let paged = '';
  let sinceId = 0;
  const totals: number[] = [];
  for (;;) {
    const res = await server.request(`/api/v2/qso?format=adif&per_page=1700&since_id=${sinceId}`, { token: op.token });
    t.equal(res.status, 200);
    if (res.body.data.exported === 0) {
      t.same(res.body.data, { adif: null, exported: 0, lastfetchedid: sinceId });
      t.match(res.body.meta, { count: 0, total: 0, has_more: false });
      break;
    }
    t.equal(res.body.meta.count, res.body.data.exported);
    totals.push(res.body.meta.total);
    paged += records(res.body.data.adif);
    sinceId = res.body.data.lastfetchedid;
  }
  t.equal(paged, exported, 'the pages together are the export, byte for byte');
  t.same(totals, [all, all - 1700, all - 3400, all - 5100, all - 6800], 'each total counts what is left');

  t.test('totals with filters and scopes match counts wherever since_id falls', async (t) => {
    const { rows: ids } = await db.query<{ id: number }>('SELECT id FROM qso WHERE station_id = ANY($1) ORDER BY random() LIMIT 8', [[op.stationId, portable]]);
    for (const query of ['', '&band=20m', '&mode=FT4', '&qsl_filter=lotw', `&station_id=${portable}`, '&callsign=K5R1H']) {
      for (const sinceId of [0, ...ids.map((row) => row.id)]) {
        const res = await server.request(`/api/v2/qso?format=adif&per_page=10&since_id=${sinceId}${query}`, { token: op.token });
        const json = await server.request(`/api/v2/qso?since_id=${sinceId}${query}&per_page=1`, { token: op.token });
        t.equal(res.body.meta.total, json.body.meta.total, `ADIF and JSON agree (${query}, since ${sinceId})`);
      }
    }
  });
});

t.test('id-bounded totals stay exact under concurrent writers', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1IDT' });
  const second = await createStation(db, { userId: op.userId, name: 'Portable', callsign: 'DL1IDT', gridsquare: 'JO62QM' });
  const club = await createClub(db, 'DL0IDT');
  const member = await club.memberToken(3, 'DL2IDM');
  const stations = [op.stationId, second];
  // Enough QSOs to fill three blocks of ids (4096 each; January and February 2020), so that the
  // sums of whole blocks are part of every id-bounded total and not only the partial blocks.
  await seedQsos(db, stations, seedSql(12000), [op.stationId, 'S', 'DL1IDT']);

  // Lists as the API parses them, for the owner and the club member, with and without filters.
  const owner = { userId: op.userId, club: null, stationIds: stations } as unknown as Principal;
  const memberPrincipal = { userId: club.clubId, club: { level: 3, memberCallsign: member.callsign }, stationIds: [club.clubStationId] } as unknown as Principal;
  const listOf = (principal: Principal, query: Record<string, string>) =>
    withItsCut(db, parseListQuery({ query, principal } as unknown as RequestContext));

  const mismatches = async (): Promise<string[]> => {
    const { rows: [span] } = await db.query<{ top: number }>('SELECT coalesce(max(id), 0) AS top FROM qso');
    const found: string[] = [];
    const cases: Array<[string, Principal, Record<string, string>]> = [];
    for (const since of [0, Math.floor(span!.top / 3), Math.floor((2 * span!.top) / 3), span!.top - 5]) {
      // One kind of filter sums that kind's id-block counts, band and mode theirs (sql/026);
      // other pairs count the smaller side.
      for (const filter of [{}, { band: '20m' }, { mode: 'FT4' }, { qsl_filter: 'lotw' }, { band: '20m', mode: 'FT8' }, { band: '20m', qsl_filter: 'lotw' }] as Array<Record<string, string>>) {
        cases.push([`owner since ${since} ${JSON.stringify(filter)}`, owner, { format: 'adif', since_id: String(since), ...filter }]);
      }
      for (const filter of [{}, { band: '20m' }, { mode: 'FT8' }, { band: '40m', mode: 'FT4' }] as Array<Record<string, string>>) {
        cases.push([`member since ${since} ${JSON.stringify(filter)}`, memberPrincipal, { format: 'adif', since_id: String(since), ...filter }]);
      }
      // Dates: from the months less what lies beyond the cut without since_id; with it, from the
      // blocks of the range's months and its partial months counted by block (with a filter,
      // counted). Inside a month; the imports' month partial; two partial months, no whole one.
      for (const [from, to] of [['2020-01-03', '2020-01-09'], ['2019-12-15', '2024-05-04'], ['2020-01-20', '2020-02-10'], ['2020-01-20', '2024-05-02']]) {
        cases.push([`owner since ${since} ${from}..${to}`, owner, { format: 'adif', since_id: String(since), qso_since: from, qso_until: to }]);
        cases.push([`owner since ${since} ${from}..${to} mode FT8`, owner, { format: 'adif', since_id: String(since), qso_since: from, qso_until: to, mode: 'FT8' }]);
        cases.push([`member since ${since} ${from}..${to}`, memberPrincipal, { format: 'adif', since_id: String(since), qso_since: from, qso_until: to }]);
      }
    }
    for (const [name, principal, query] of cases) {
      const list = await listOf(principal, query);
      const client = await db.connect();
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const { total } = await countTotalBindingPage(client, list, pageSql(list));
        const conditions: string[] = ['station_id = ANY($1::int[])', 'id > $2', 'id < $3'];
        const values: unknown[] = [list.scope.stationIds, list.sinceId, list.idBelow];
        if (list.scope.operator !== null) conditions.push(`operator = $${values.push(list.scope.operator)}`);
        if (query.band) conditions.push(`band = $${values.push(query.band)}`);
        if (query.mode) conditions.push(`(mode = $${values.push(query.mode)} OR submode = $${values.length})`);
        if (query.qsl_filter) conditions.push(`lotw_qsl_rcvd = 'Y'`);
        if (query.qso_since) conditions.push(`time_on >= $${values.push(query.qso_since)}::date`);
        if (query.qso_until) conditions.push(`time_on < $${values.push(query.qso_until)}::date + 1`);
        const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM qso WHERE ${conditions.join(' AND ')}`, values);
        await client.query('COMMIT');
        if (rows[0]!.n !== total) found.push(`${name}: total ${total}, counted ${rows[0]!.n}`);
      } finally {
        client.release();
      }
    }
    return found;
  };

  const checker = repeatCheck(mismatches);
  const adif = (round: number, operator: string) =>
    Array.from({ length: 40 }, (_, i) => `<call:6>G${round}X${String(i).padStart(3, '0')}<band:3>20m<mode:3>FT8<qso_date:8>2024050${1 + (round % 9)}<time_on:4>${String(1000 + i).slice(-4)}<operator:${operator.length}>${operator}<eor>\n`).join('');
  for (let round = 0; round < 4; round++) {
    await Promise.all([
      importAdif(db, Readable.from([adif(round, 'DL1IDT')]), { stationId: op.stationId, frequencyUnit: 'MHz' }),
      importAdif(db, Readable.from([adif(round, round % 2 ? member.callsign : 'DL9OTH')]), { stationId: club.clubStationId, frequencyUnit: 'MHz' }),
      seedQsos(db, stations, 'UPDATE qso SET station_id = $2 WHERE id IN (SELECT id FROM qso WHERE station_id = $1 ORDER BY random() LIMIT 20)', [op.stationId, second]),
      seedQsos(db, [club.clubStationId], 'UPDATE qso SET operator = $2 WHERE id IN (SELECT id FROM qso WHERE station_id = $1 AND operator <> $2 LIMIT 4)', [club.clubStationId, member.callsign]),
      seedQsos(db, stations, 'DELETE FROM qso WHERE id IN (SELECT id FROM qso WHERE station_id = $1 ORDER BY random() LIMIT 15)', [op.stationId]),
      compactQsoCounts(db, 0),
    ]);
  }
  t.same(await checker.stop(), [], 'every snapshot: the id-bounded totals equal the counts');
  await compactQsoCounts(db, 0);
  t.same(await mismatches(), [], 'after compaction');
});
