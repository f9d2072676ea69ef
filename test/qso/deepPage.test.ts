import t from 'tap';
import { Readable } from 'node:stream';
import { startTestServer } from '../helpers/server.js';
import { repeatCheck } from '../helpers/repeatedCheck.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { seedQsos } from '../helpers/qsoRows.js';
import { createStation } from '../../lib/accounts/stations.js';
import { importAdif } from '../../lib/import/pipeline.js';
import { compactQsoCounts } from '../../lib/qso/counts.js';
import { beginQsoWriteForStations } from '../../lib/qso/writeLock.js';

/**
 * `count` QSOs at random times over six years, some sharing a time_on (ids decide those), on
 * three bands (one of them by satellite), in CW, SSB and FT4 (a submode), every fifth confirmed
 * on LoTW and every seventh by card.
 */
function seedSql(count: number): string {
  return `INSERT INTO qso (station_id, call, time_on, band, mode, submode, prop_mode, lotw_qsl_rcvd, qsl_rcvd, operator)
          SELECT $1, 'K' || g || $2, timestamp '2019-01-01' + floor(random() * 50000) * interval '1 hour',
                 (ARRAY['20m', '40m', '2m'])[1 + g % 3], (ARRAY['CW', 'SSB', 'MFSK'])[1 + g % 3 / 2 + g % 2],
                 CASE WHEN g % 3 / 2 + g % 2 = 2 THEN 'FT4' END, CASE WHEN g % 3 = 2 THEN 'SAT' END,
                 CASE WHEN g % 5 = 0 THEN 'Y' ELSE 'N' END, CASE WHEN g % 7 = 0 THEN 'Y' END, $3
            FROM generate_series(1, ${count}) g`;
}

/** The list filters a deep page may have, and the same condition written plainly. */
const FILTERS: ReadonlyArray<readonly [query: string, condition: string]> = [
  ['band=20m', "band = '20m'"],
  ['band=SAT', "prop_mode = 'SAT'"],
  ['mode=FT4', "(mode = 'FT4' OR submode = 'FT4')"],
  ['mode=CW&band=40m', "(mode = 'CW' OR submode = 'CW') AND band = '40m'"],
  ['band=SAT&mode=FT4', "prop_mode = 'SAT' AND (mode = 'FT4' OR submode = 'FT4')"],
  ['band=2m&qsl_filter=lotw', "band = '2m' AND lotw_qsl_rcvd = 'Y'"],
  ['qsl_filter=lotw,qsl', "(lotw_qsl_rcvd = 'Y' OR qsl_rcvd = 'Y')"],
];

t.test('deep pages start from their month and are the same pages as a plain OFFSET; date totals from months', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1DEP' });
  const portable = await createStation(db, { userId: op.userId, name: 'Portable', callsign: 'DL1DEP/P', gridsquare: 'JO62QM' });
  const other = await createOperator(db, { callsign: 'DL2DEP' });
  // 32,000 at Home: a third of the owner's QSOs (one band, say) reaches past offset 10,000, where the seek begins.
  await seedQsos(db, [op.stationId], seedSql(32000), [op.stationId, 'H', 'DL1DEP']);
  await seedQsos(db, [portable], seedSql(6000), [portable, 'P', 'DL1DEP']);
  await seedQsos(db, [other.stationId], seedSql(3000), [other.stationId, 'O', 'DL2DEP']);
  // A club station whose member logged 11,000 of its 15,000 QSOs, interleaved in id order with
  // the other operator's, so that the member's deep pages count only theirs.
  const club = await createClub(db, 'DL0DEP');
  const member = await club.memberToken(3, 'DL2MEM');
  for (let round = 0; round < 4; round++) {
    await seedQsos(db, [club.clubStationId], seedSql(2750), [club.clubStationId, `M${round}`, member.callsign]);
    await seedQsos(db, [club.clubStationId], seedSql(1000), [club.clubStationId, `N${round}`, 'DL9OTH']);
  }
  // A filter few QSOs match, spread over the whole log (eQSL, about one in a hundred): its ADIF
  // pages read every match and sort them where the blocks holding a page's matches hold far more.
  await seedQsos(db, [op.stationId, portable], "UPDATE qso SET eqsl_qsl_rcvd = 'Y' WHERE station_id = ANY($1) AND id % 97 = 0", [[op.stationId, portable]]);

  const expected = async (stations: number[], perPage: number, page: number, condition = 'true') =>
    (await db.query<{ id: number }>(
      `SELECT id FROM qso WHERE station_id = ANY($1) AND ${condition} ORDER BY time_on DESC, id DESC LIMIT $2 OFFSET $3`,
      [stations, perPage, (page - 1) * perPage],
    )).rows.map((row) => row.id);
  const pageIds = async (query: string) => {
    const res = await server.request(`/api/v2/qso?${query}`, { token: op.token });
    t.equal(res.status, 200);
    return { ids: (res.body.data as Array<{ id: number }>).map((qso) => qso.id), meta: res.body.meta };
  };

  // ADIF pages go by ascending id (SPEC); their records name their QSOs by CALL, unique here.
  const expectedCalls = async (stations: number[], perPage: number, page: number, condition = 'true') =>
    (await db.query<{ call: string }>(
      `SELECT call FROM qso WHERE station_id = ANY($1) AND ${condition} ORDER BY id LIMIT $2 OFFSET $3`,
      [stations, perPage, (page - 1) * perPage],
    )).rows.map((row) => row.call);
  const adifCalls = async (query: string, token = op.token) => {
    const res = await server.request(`/api/v2/qso?format=adif&${query}`, { token });
    t.equal(res.status, 200);
    return [...String(res.body.data.adif ?? '').matchAll(/<CALL:\d+>([^<\s]*)/g)].map((match) => match[1]);
  };

  const check = async (label: string) => {
    // ADIF by page: from offset 10,000 on a page starts from its block of ids (qso_id_counts).
    for (const [perPage, page] of [[1000, 11], [1000, 19], [7, 1500], [5000, 3], [3000, 7], [1000, 21]] as const) {
      t.same(await adifCalls(`per_page=${perPage}&page=${page}`), await expectedCalls([op.stationId, portable], perPage, page), `${label}: ADIF per_page ${perPage}, page ${page}`);
    }
    t.same(await adifCalls(`station_id=${op.stationId}&per_page=100&page=120`), await expectedCalls([op.stationId], 100, 120), `${label}: ADIF, one location`);
    t.same(await adifCalls('band=20m&per_page=100&page=60'), await expectedCalls([op.stationId, portable], 100, 60, "band = '20m'"), `${label}: ADIF with a filter`);
    // ADIF by page with one kind of filter: from its block of ids in that kind's counts (sql/022);
    // band and mode together from theirs (sql/026); band with qsl_filter from the start.
    let filledAdifPages = 0;
    for (const [query, condition] of FILTERS) {
      for (const [perPage, page] of [[1000, 1], [1000, 11], [7, 1500], [3000, 4], [100, 119]] as const) {
        const calls = await adifCalls(`${query}&per_page=${perPage}&page=${page}`);
        t.same(calls, await expectedCalls([op.stationId, portable], perPage, page, condition), `${label}: ADIF ${query}, per_page ${perPage}, page ${page}`);
        if (calls.length > 0) filledAdifPages++;
      }
    }
    t.ok(filledAdifPages >= 10, `${label}: ${filledAdifPages} of the filtered deep ADIF pages hold QSOs`);
    // Followed by since_id (a sync tool's page: from the start of its id range, ids picked from
    // qso_station_id where the filters are band, mode, qsl_filter).
    const { rows: [middle] } = await db.query<{ id: number }>('SELECT (min(id) + max(id)) / 2 AS id FROM qso WHERE station_id = ANY($1)', [[op.stationId, portable]]);
    for (const [query, condition] of FILTERS) {
      t.same(await adifCalls(`${query}&since_id=${middle!.id}&per_page=500`), await expectedCalls([op.stationId, portable], 500, 1, `${condition} AND id > ${middle!.id}`),
        `${label}: ADIF ${query} from since_id`);
    }
    for (const [perPage, page] of [[1000, 6], [50, 201]] as const) {
      t.same(await adifCalls(`station_id=${portable}&qsl_filter=lotw&per_page=${perPage}&page=${page}`), await expectedCalls([portable], perPage, page, "lotw_qsl_rcvd = 'Y'"), `${label}: ADIF, one location, qsl_filter, page ${page}`);
      t.same(await adifCalls(`band=SAT&per_page=${perPage}&page=${page}`, member.token), await expectedCalls([club.clubStationId], perPage, page, `operator = '${member.callsign}' AND prop_mode = 'SAT'`), `${label}: a club member's ADIF band=SAT page ${page}`);
      t.same(await adifCalls(`band=40m&mode=CW&per_page=${perPage}&page=${page}`, member.token),
        await expectedCalls([club.clubStationId], perPage, page, `operator = '${member.callsign}' AND band = '40m' AND (mode = 'CW' OR submode = 'CW')`), `${label}: a club member's ADIF band=40m&mode=CW page ${page}`);
    }
    // ADIF pages of a range of dates in a log at random times: a short range read by time and
    // sorted by id, a long one from the blocks of ids holding it; the same pages either way,
    // and their totals exact.
    for (const [since, until] of [['2020-03-01', '2020-03-31'], ['2021-02-10', '2021-08-03'], ['2019-06-15', '2023-11-20']]) {
      const dated = `time_on >= '${since}' AND time_on < date '${until}' + 1`;
      for (const [perPage, page] of [[100, 1], [100, 3], [7, 40], [1000, 1], [1000, 12]] as const) {
        const res = await server.request(`/api/v2/qso?format=adif&qso_since=${since}&qso_until=${until}&per_page=${perPage}&page=${page}`, { token: op.token });
        const calls = [...String(res.body.data.adif ?? '').matchAll(/<CALL:\d+>([^<\s]*)/g)].map((match) => match[1]);
        t.same(calls, await expectedCalls([op.stationId, portable], perPage, page, dated), `${label}: ADIF ${since}..${until}, per_page ${perPage}, page ${page}`);
        const { rows: [inRange] } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM qso WHERE station_id = ANY($1) AND ${dated}`, [[op.stationId, portable]]);
        t.equal(res.body.meta.total, inRange!.n, `${label}: ADIF ${since}..${until} total`);
      }
      t.same(await adifCalls(`qso_since=${since}&qso_until=${until}&band=SAT&per_page=50&page=2`, member.token),
        await expectedCalls([club.clubStationId], 50, 2, `operator = '${member.callsign}' AND prop_mode = 'SAT' AND ${dated}`), `${label}: a club member's ADIF ${since}..${until} band=SAT`);
    }
    // One kind of filter from page 1: the blocks of ids holding the page's matches (a card,
    // every seventh QSO), or every match read from its own index and sorted by id where those
    // blocks hold far more QSOs than there are matches (eQSL, one in a hundred), each location
    // holding more than the page.
    for (const [perPage, page] of [[1000, 1], [100, 5], [7, 90]] as const) {
      t.same(await adifCalls(`qsl_filter=qsl&per_page=${perPage}&page=${page}`), await expectedCalls([op.stationId, portable], perPage, page, "qsl_rcvd = 'Y'"), `${label}: ADIF qsl_filter=qsl, per_page ${perPage}, page ${page}`);
    }
    for (const [perPage, page] of [[1000, 1], [100, 1], [100, 3], [7, 20]] as const) {
      const calls = await adifCalls(`qsl_filter=eqsl&per_page=${perPage}&page=${page}`);
      t.same(calls, await expectedCalls([op.stationId, portable], perPage, page, "eqsl_qsl_rcvd = 'Y'"), `${label}: ADIF qsl_filter=eqsl, per_page ${perPage}, page ${page}`);
      t.ok(calls.length > 0, `${label}: ADIF qsl_filter=eqsl, per_page ${perPage}, page ${page} holds QSOs`);
    }
    for (const [perPage, page] of [[1000, 11], [100, 105], [3, 3500]] as const) {
      t.same(await adifCalls(`per_page=${perPage}&page=${page}`, member.token), await expectedCalls([club.clubStationId], perPage, page, `operator = '${member.callsign}'`), `${label}: a club member's ADIF page ${page}`);
      const res = await server.request(`/api/v2/qso?per_page=${perPage}&page=${page}`, { token: member.token });
      const ids = (res.body.data as Array<{ id: number }>).map((qso) => qso.id);
      t.same(ids, await expected([club.clubStationId], perPage, page, `operator = '${member.callsign}'`), `${label}: a club member's page ${page}`);
    }
    for (const [perPage, page] of [[50, 201], [100, 150], [7, 1500], [50, 399], [50, 400], [5000, 4], [50, 401]] as const) {
      const got = await pageIds(`per_page=${perPage}&page=${page}`);
      t.same(got.ids, await expected([op.stationId, portable], perPage, page), `${label}: per_page ${perPage}, page ${page}`);
    }
    const home = await pageIds(`station_id=${op.stationId}&per_page=50&page=250`);
    t.same(home.ids, await expected([op.stationId], 50, 250), `${label}: one location`);
    // A range of QSO dates: whole months summed, the partial months at its ends counted.
    for (const [since, until] of [['2019-06-15', '2023-11-20'], ['2019-01-01', '2023-12-31'], ['2019-03-31', '2024-02-01']]) {
      const dated = `time_on >= '${since}' AND time_on < date '${until}' + 1`;
      // The range's last pages too: their offsets fall into its oldest months, the partial one among them.
      const { rows: [inRange] } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM qso WHERE station_id = ANY($1) AND ${dated}`, [[op.stationId, portable]]);
      const last = (perPage: number, back: number) => [perPage, Math.ceil(inRange!.n / perPage) - back] as const;
      for (const [perPage, page] of [[50, 201], [7, 1500], [1000, 11], [2000, 7], last(50, 0), last(7, 0), last(7, 30), last(50, 4)] as const) {
        const got = await pageIds(`qso_since=${since}&qso_until=${until}&per_page=${perPage}&page=${page}`);
        t.same(got.ids, await expected([op.stationId, portable], perPage, page, dated), `${label}: ${since}..${until}, per_page ${perPage}, page ${page}`);
      }
      const got = await pageIds(`qso_since=${since}&qso_until=${until}&mode=FT4&per_page=7&page=700`);
      t.same(got.ids, await expected([op.stationId, portable], 7, 700, `${dated} AND (mode = 'FT4' OR submode = 'FT4')`), `${label}: ${since}..${until} and mode=FT4`);
      // qsl_filter seeks the month of its offset (the month counts keep the statuses, sql/057).
      const confirmed = await pageIds(`qso_since=${since}&qso_until=${until}&qsl_filter=lotw,qsl&per_page=7&page=1500`);
      t.same(confirmed.ids, await expected([op.stationId, portable], 7, 1500, `${dated} AND (lotw_qsl_rcvd = 'Y' OR qsl_rcvd = 'Y')`), `${label}: ${since}..${until} and qsl_filter=lotw,qsl`);
    }
    // Filtered: offsets 10,000 and beyond in lists of 1,900 to 12,500 QSOs.
    let filledFilteredPages = 0;
    for (const [query, condition] of FILTERS) {
      for (const [perPage, page] of [[50, 201], [1000, 11], [7, 1500], [2000, 6]] as const) {
        const got = await pageIds(`${query}&per_page=${perPage}&page=${page}`);
        t.same(got.ids, await expected([op.stationId, portable], perPage, page, condition), `${label}: ${query}, per_page ${perPage}, page ${page}`);
        if (got.ids.length > 0) filledFilteredPages++;
      }
    }
    // Past offset 10,000 (where the seek begins) band=20m, band=SAT and the qsl_filter have QSOs.
    t.ok(filledFilteredPages >= 10, `${label}: ${filledFilteredPages} of the filtered deep pages hold QSOs`);
  };
  await check('appended counts');
  await compactQsoCounts(db, 0);
  await check('folded counts');
  // QSOs moved to other months (a PATCH of qso_date/time_on), deleted, moved between locations.
  await seedQsos(db, [op.stationId], `UPDATE qso SET time_on = time_on - interval '400 days' WHERE id IN (SELECT id FROM qso WHERE station_id = $1 ORDER BY random() LIMIT 700)`, [op.stationId]);
  await seedQsos(db, [portable], 'DELETE FROM qso WHERE id IN (SELECT id FROM qso WHERE station_id = $1 ORDER BY random() LIMIT 300)', [portable]);
  await seedQsos(db, [op.stationId, portable], 'UPDATE qso SET station_id = $2 WHERE id IN (SELECT id FROM qso WHERE station_id = $1 ORDER BY random() LIMIT 200)', [op.stationId, portable]);
  await seedQsos(db, [club.clubStationId], 'UPDATE qso SET operator = $2 WHERE id IN (SELECT id FROM qso WHERE station_id = $1 AND operator <> $2 ORDER BY random() LIMIT 300)', [club.clubStationId, member.callsign]);
  await seedQsos(db, [club.clubStationId], 'DELETE FROM qso WHERE id IN (SELECT id FROM qso WHERE station_id = $1 AND operator = $2 ORDER BY random() LIMIT 400)', [club.clubStationId, member.callsign]);
  await seedQsos(db, [op.stationId], "UPDATE qso SET lotw_qsl_rcvd = 'Y', band = '40m' WHERE id IN (SELECT id FROM qso WHERE station_id = $1 ORDER BY random() LIMIT 900)", [op.stationId]);
  await check('after moves in time, deletes, moves between locations, confirmations and band changes');
  const dated = async (query: string, where: string, values: unknown[]) => {
    const res = await server.request(`/api/v2/qso?per_page=1${query}`, { token: op.token });
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM qso WHERE station_id = ANY($1) AND ${where}`, [[op.stationId, portable], ...values]);
    t.equal(res.body.meta.total, rows[0]!.n, `total with ${query}`);
  };
  for (const [since, until] of [['2020-03-01', '2020-03-31'], ['2020-03-05', '2020-03-20'], ['2020-02-10', '2021-07-03'], ['2020-01-01', '2020-12-31'], ['2019-12-31', '2020-01-01']]) {
    await dated(`&qso_since=${since}&qso_until=${until}`, "time_on >= $2::date AND time_on < $3::date + 1", [since, until]);
  }
  for (const day of ['2020-03-01', '2021-06-17', '2024-12-31']) {
    await dated(`&qso_since=${day}`, 'time_on >= $2::date', [day]);
    await dated(`&qso_until=${day}`, 'time_on < $2::date + 1', [day]);
  }
  for (const [query, condition] of FILTERS) {
    await dated(`&qso_since=2020-03-05&${query}`, `time_on >= $2::date AND ${condition}`, ['2020-03-05']);
    await dated(`&qso_since=2020-02-10&qso_until=2021-07-03&${query}`, `time_on >= $2::date AND time_on < $3::date + 1 AND ${condition}`, ['2020-02-10', '2021-07-03']);
  }
  const beyond = await pageIds('per_page=50&page=1000');
  t.same(beyond.ids, [], 'a page beyond the end is empty');
  t.equal(beyond.meta.total, 37700);

  // A writer still running holds the ADIF pages' cut (they stop below the ids it may commit),
  // while QSOs committed after it, with higher ids, fill the id blocks from the cut's block on:
  // the pages near the cut are still those of a plain OFFSET over the ids below it.
  const held = await db.connect();
  try {
    await held.query('BEGIN');
    await beginQsoWriteForStations(held, [portable]);
    const { rows: [first] } = await held.query<{ id: number }>(`${seedSql(1)} RETURNING id`, [portable, 'W', 'DL1DEP']);
    await seedQsos(db, [op.stationId], seedSql(6000), [op.stationId, 'L', 'DL1DEP']);
    const below = `id < ${first!.id}`;
    const { rows: [cut] } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM qso WHERE station_id = ANY($1) AND ${below}`, [[op.stationId, portable]]);
    for (const [perPage, page] of [[1000, Math.ceil(cut!.n / 1000)], [7, Math.ceil(cut!.n / 7)], [7, Math.ceil(cut!.n / 7) - 3], [100, Math.ceil(cut!.n / 100) + 1]]) {
      t.same(await adifCalls(`per_page=${perPage}&page=${page}`), await expectedCalls([op.stationId, portable], perPage, page, below), `ADIF page ${page} of ${perPage} below a running writer`);
    }
    // A range of dates, a filter: their counts hold the QSOs committed after the cut too; the total leaves them out.
    for (const [query, condition] of [['qso_since=2020-03-01&qso_until=2020-03-31', "time_on >= '2020-03-01' AND time_on < '2020-04-01'"],
      ['qso_since=2019-06-15&qso_until=2023-11-20', "time_on >= '2019-06-15' AND time_on < '2023-11-21'"], ['band=20m', "band = '20m'"],
      ['qso_since=2019-06-15&qso_until=2023-11-20&qsl_filter=lotw', "time_on >= '2019-06-15' AND time_on < '2023-11-21' AND lotw_qsl_rcvd = 'Y'"]]) {
      const dated = `${condition} AND ${below}`;
      const res = await server.request(`/api/v2/qso?format=adif&${query}&per_page=100&page=2`, { token: op.token });
      const { rows: [inRange] } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM qso WHERE station_id = ANY($1) AND ${dated}`, [[op.stationId, portable]]);
      t.equal(res.body.meta.total, inRange!.n, `ADIF ${query} total below a running writer`);
      const calls = [...String(res.body.data.adif ?? '').matchAll(/<CALL:\d+>([^<\s]*)/g)].map((match) => match[1]);
      t.same(calls, await expectedCalls([op.stationId, portable], 100, 2, dated), `ADIF ${query} page below a running writer`);
    }
  } finally {
    await held.query('ROLLBACK');
    held.release();
  }
});

t.test('ADIF pages of a range of dates in a log stored in time order read the blocks of ids holding the range', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1ORD' });
  const portable = await createStation(db, { userId: op.userId, name: 'Portable', callsign: 'DL1ORD/P', gridsquare: 'JO62QM' });
  const stations = [op.stationId, portable];
  // Logged as made, every ten minutes from 2019 (24,000 QSOs: five and a half months, a block of
  // 4096 ids about four weeks), taking turns between the two locations in runs of a thousand;
  // then an older log imported later, at random times over six years; then QSOs of March 2019
  // logged late, inside the range of most checks.
  const inOrder = (count: number, start: string, every: string, tag: string) =>
    `INSERT INTO qso (station_id, call, time_on, band, mode, operator)
     SELECT CASE WHEN g / 1000 % 2 = 0 THEN $1::int ELSE $2::int END, '${tag}' || g, timestamp '${start}' + g * interval '${every}', '20m', 'CW', 'DL1ORD'
       FROM generate_series(1, ${count}) g`;
  await seedQsos(db, stations, inOrder(24000, '2019-01-01', '10 minutes', 'O'), stations);
  await seedQsos(db, [op.stationId], seedSql(2000), [op.stationId, 'R', 'DL1ORD']);
  await seedQsos(db, stations, inOrder(300, '2019-03-01', '10 minutes', 'L'), stations);
  // A club station logged in time order by a member and another operator taking turns in runs of
  // 700: the member's pages hold their own QSOs only.
  const club = await createClub(db, 'DL0ORD');
  const member = await club.memberToken(3, 'DL2ORD');
  await seedQsos(db, [club.clubStationId], `INSERT INTO qso (station_id, call, time_on, band, mode, operator)
    SELECT $1, 'C' || g, timestamp '2019-01-01' + g * interval '10 minutes', '40m', 'SSB', CASE WHEN g / 700 % 2 = 0 THEN $2 ELSE 'DL9OTH' END
      FROM generate_series(1, 16000) g`, [club.clubStationId, member.callsign]);

  const expectedCalls = async (perPage: number, page: number, condition: string, scope = stations) =>
    (await db.query<{ call: string }>(
      `SELECT call FROM qso WHERE station_id = ANY($1) AND ${condition} ORDER BY id LIMIT $2 OFFSET $3`,
      [scope, perPage, (page - 1) * perPage],
    )).rows.map((row) => row.call);
  const adifCalls = async (query: string, token: string) => {
    const res = await server.request(`/api/v2/qso?format=adif${query}`, { token });
    return [...String(res.body.data.adif ?? '').matchAll(/<CALL:\d+>([^<\s]*)/g)].map((match) => match[1]);
  };
  const check = async (label: string) => {
    for (const [since, until, perPage, page] of [['2019-02-03', '2019-03-20', 100, 2], ['2019-01-20', '2019-04-30', 1000, 4], ['2019-03-01', '2019-03-31', 7, 90]] as const) {
      const dated = `operator = '${member.callsign}' AND time_on >= '${since}' AND time_on < date '${until}' + 1`;
      t.same(await adifCalls(`&qso_since=${since}&qso_until=${until}&per_page=${perPage}&page=${page}`, member.token),
        await expectedCalls(perPage, page, dated, [club.clubStationId]), `${label}: a club member's ADIF ${since}..${until}, page ${page}`);
    }
    let filled = 0;
    for (const [since, until] of [['2019-03-01', '2019-03-31'], ['2019-03-05', '2019-04-10'], ['2019-03-10', '2019-03-20'], ['2019-02-17', '2019-05-03'],
      ['2019-01-01', '2024-12-31'], ['2019-05-14', null], [null, '2019-02-09']] as const) {
      const dated = [since === null ? 'true' : `time_on >= '${since}'`, until === null ? 'true' : `time_on < date '${until}' + 1`].join(' AND ');
      const query = [since === null ? '' : `&qso_since=${since}`, until === null ? '' : `&qso_until=${until}`].join('');
      for (const [perPage, page] of [[100, 1], [100, 4], [7, 60], [1000, 1], [1000, 3], [1000, 11], [3, 1200]] as const) {
        const calls = await adifCalls(`${query}&per_page=${perPage}&page=${page}`, op.token);
        t.same(calls, await expectedCalls(perPage, page, dated), `${label}: ADIF ${since}..${until}, per_page ${perPage}, page ${page}`);
        if (calls.length > 0) filled++;
      }
    }
    t.ok(filled >= 28, `${label}: ${filled} of the pages hold QSOs`);
  };
  await check('appended counts');
  await compactQsoCounts(db, 0);
  await check('folded counts');
  // QSOs moved in time (a PATCH of qso_date), deleted, moved between locations.
  await seedQsos(db, [op.stationId], `UPDATE qso SET time_on = time_on + interval '500 days' WHERE id IN (SELECT id FROM qso WHERE station_id = $1 ORDER BY random() LIMIT 500)`, [op.stationId]);
  await seedQsos(db, [portable], 'DELETE FROM qso WHERE id IN (SELECT id FROM qso WHERE station_id = $1 ORDER BY random() LIMIT 300)', [portable]);
  await seedQsos(db, stations, 'UPDATE qso SET station_id = $2 WHERE id IN (SELECT id FROM qso WHERE station_id = $1 ORDER BY random() LIMIT 300)', stations);
  await check('after moves in time, deletes and moves between locations');
});

t.test('month counts stay exact under concurrent writers', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1MON' });
  const club = await createClub(db, 'DL0MON');
  const member = await club.memberToken(3, 'DL2MOM');
  await seedQsos(db, [op.stationId], seedSql(2000), [op.stationId, 'S', 'DL1MON']);

  const mismatches = async (): Promise<string[]> => {
    const client = await db.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // Per month, in one snapshot.
      const { rows } = await client.query<{ station_id: number; operator: string | null; month: string; counted: number; summed: number }>(
        `SELECT station_id, operator, month::text AS month, coalesce(q.n, 0)::int AS counted, coalesce(c.n, 0)::int AS summed
           FROM (SELECT station_id, operator, date_trunc('month', time_on) AS month, count(*) AS n FROM qso GROUP BY 1, 2, 3) q
           FULL JOIN (SELECT station_id, operator, month, sum(n) AS n FROM qso_month_counts GROUP BY 1, 2, 3) c
             USING (station_id, operator, month)
          WHERE coalesce(q.n, 0) <> coalesce(c.n, 0)`,
      );
      await client.query('COMMIT');
      return rows.map((row) => `${row.station_id}/${row.operator}/${row.month}: ${row.summed} summed, ${row.counted} counted`);
    } finally {
      client.release();
    }
  };

  const checker = repeatCheck(mismatches);
  const adif = (round: number, operator: string) =>
    Array.from({ length: 30 }, (_, i) => `<call:6>M${round}X${String(i).padStart(3, '0')}<band:3>20m<mode:3>FT8<qso_date:8>20240${1 + (i % 9)}15<time_on:4>1200<operator:${operator.length}>${operator}<eor>\n`).join('');
  for (let round = 0; round < 4; round++) {
    await Promise.all([
      importAdif(db, Readable.from([adif(round, 'DL1MON')]), { stationId: op.stationId, frequencyUnit: 'MHz' }),
      importAdif(db, Readable.from([adif(round, round % 2 ? member.callsign : 'DL9OTH')]), { stationId: club.clubStationId, frequencyUnit: 'MHz' }),
      seedQsos(db, [op.stationId], `UPDATE qso SET time_on = time_on + interval '45 days' WHERE id IN (SELECT id FROM qso WHERE station_id = $1 ORDER BY random() LIMIT 25)`, [op.stationId]),
      seedQsos(db, [club.clubStationId], 'UPDATE qso SET operator = $2 WHERE id IN (SELECT id FROM qso WHERE station_id = $1 AND operator <> $2 LIMIT 4)', [club.clubStationId, member.callsign]),
      seedQsos(db, [op.stationId], 'DELETE FROM qso WHERE id IN (SELECT id FROM qso WHERE station_id = $1 ORDER BY random() LIMIT 10)', [op.stationId]),
      seedQsos(db, [op.stationId], "UPDATE qso SET lotw_qsl_rcvd = 'Y', band = '40m' WHERE id IN (SELECT id FROM qso WHERE station_id = $1 AND lotw_qsl_rcvd IS DISTINCT FROM 'Y' ORDER BY random() LIMIT 15)", [op.stationId]),
      compactQsoCounts(db, 0),
    ]);
  }
  t.same(await checker.stop(), [], 'every snapshot: month sums equal the counts');
  await compactQsoCounts(db, 0);
  t.same(await mismatches(), [], 'after compaction');
});
