import t from 'tap';
import { testDatabase } from '../helpers/db.js';
import { createClub, createOperator } from '../helpers/fixtures.js';
import { insertQsos, seedQsos, type QsoRow } from '../helpers/qsoRows.js';
import { createStation } from '../../lib/accounts/stations.js';
import { qsoStatistics } from '../../lib/statistics/qsoStatistics.js';
import { compactQsoCounts } from '../../lib/qso/counts.js';
import { dxccEntities } from '../../lib/dxcc/entities.js';
import type { QsoScope } from '../../lib/qso/scope.js';

/**
 * The statistics' DXCC progress sums the writers' counts per entity (qso_dxcc_counts, sql/025):
 * the same numbers as distinct entities over the scope's QSOs, current and deleted entities,
 * worked and confirmed by card or LoTW, for an owner, one location and a club member, through
 * appends, folding, deletes, moves, confirmations withdrawn and given, entities corrected.
 */
t.test('DXCC progress from the counts equals distinct entities of the QSOs', async (t) => {
  const db = (await testDatabase(t)).pool;
  const op = await createOperator(db, { callsign: 'DL1DXC' });
  const second = await createStation(db, { userId: op.userId, name: 'Portable', callsign: 'DL1DXC/P' });
  const club = await createClub(db, 'DL0DXC');
  const member = await club.memberToken(3, 'DL2DXC');
  const entities = dxccEntities('name');
  const current = entities.filter((e) => e.adif > 0 && !e.deleted).slice(0, 6).map((e) => e.adif);
  const deleted = entities.filter((e) => e.deleted).slice(0, 3).map((e) => e.adif);
  // No entity (0, NULL) counts nowhere.
  const codes = [...current, ...deleted, 0, null];

  const rows: QsoRow[] = [];
  for (let i = 0; i < 60; i++) {
    const dxcc = codes[(i * 7) % codes.length]!;
    const confirmations = { qsl_rcvd: i % 3 === 0 ? 'Y' : 'N', lotw_qsl_rcvd: i % 4 === 0 ? 'Y' : null };
    rows.push({ station_id: i % 2 ? op.stationId : second, call: `K${i}D`, time_on: `2024-03-${String(1 + (i % 28)).padStart(2, '0')} 10:00:00`, dxcc, ...confirmations });
    rows.push({ station_id: club.clubStationId, call: `K${i}C`, time_on: '2024-04-01 10:00:00', dxcc, operator: i % 3 ? member.callsign : 'DL9OTH', ...confirmations });
  }
  await insertQsos(db, rows);

  const scopes: Array<[string, QsoScope]> = [
    ['owner', { stationIds: [op.stationId, second], operator: null }],
    ['one location', { stationIds: [second], operator: null }],
    ['club', { stationIds: [club.clubStationId], operator: null }],
    ['member', { stationIds: [club.clubStationId], operator: member.callsign }],
  ];
  const available = entities.filter((e) => e.adif > 0 && !e.deleted).length;
  const counted = async ({ stationIds, operator }: QsoScope) => {
    const { rows: [row] } = await db.query<Record<string, number>>(
      `SELECT count(DISTINCT dxcc) FILTER (WHERE NOT gone)::int AS worked,
              count(DISTINCT dxcc) FILTER (WHERE NOT gone AND (qsl_rcvd = 'Y' OR lotw_qsl_rcvd = 'Y'))::int AS confirmed,
              count(DISTINCT dxcc) FILTER (WHERE NOT gone AND qsl_rcvd = 'Y')::int AS paper,
              count(DISTINCT dxcc) FILTER (WHERE NOT gone AND lotw_qsl_rcvd = 'Y')::int AS lotw,
              count(DISTINCT dxcc) FILTER (WHERE gone)::int AS gone_worked,
              count(DISTINCT dxcc) FILTER (WHERE gone AND qsl_rcvd = 'Y')::int AS gone_paper,
              count(DISTINCT dxcc) FILTER (WHERE gone AND lotw_qsl_rcvd = 'Y')::int AS gone_lotw
         FROM (SELECT dxcc, dxcc = ANY($3::int[]) AS gone, qsl_rcvd, lotw_qsl_rcvd FROM qso
                WHERE station_id = ANY($1::int[]) AND ($2::text IS NULL OR operator = $2) AND dxcc > 0) q`,
      [stationIds, operator, deleted],
    );
    return {
      worked: row!.worked, confirmed: row!.confirmed, confirmed_paper: row!.paper, confirmed_lotw: row!.lotw, available,
      deleted: { worked: row!.gone_worked, confirmed_paper: row!.gone_paper, confirmed_lotw: row!.gone_lotw },
    };
  };
  const check = async (label: string) => {
    for (const [name, scope] of scopes) {
      const expected = await counted(scope);
      t.same((await qsoStatistics(db, scope)).dxcc, expected, `${label}: ${name}`);
    }
  };

  await check('appended counts');
  const { worked } = await counted(scopes[0]![1]);
  t.ok(worked >= 5, `the owner worked ${worked} current entities`);
  await compactQsoCounts(db, 0);
  await check('folded counts');

  const owner = [op.stationId, second];
  // The last QSOs of an entity deleted; an entity's only confirmation withdrawn; a card received;
  // a QSO moved between locations; an entity corrected; a QSO given to another club operator.
  await seedQsos(db, owner, 'DELETE FROM qso WHERE station_id = ANY($1::int[]) AND dxcc = $2', [owner, current[1]]);
  await seedQsos(db, owner, "UPDATE qso SET lotw_qsl_rcvd = 'N', qsl_rcvd = 'N' WHERE station_id = ANY($1::int[]) AND dxcc = $2", [owner, current[2]]);
  await seedQsos(db, owner, "UPDATE qso SET qsl_rcvd = 'Y' WHERE call = 'K7D'");
  await seedQsos(db, owner, 'UPDATE qso SET station_id = $1 WHERE call IN (\'K1D\', \'K3D\', \'K5D\')', [second]);
  await seedQsos(db, owner, 'UPDATE qso SET dxcc = $1 WHERE call = \'K9D\'', [current[5]! + 1000]);
  await seedQsos(db, [club.clubStationId], "UPDATE qso SET operator = $1 WHERE call IN ('K0C', 'K3C')", [member.callsign]);
  await check('after deletes, withdrawn and new confirmations, moves, a corrected entity');
  await compactQsoCounts(db, 0);
  await check('folded again');
});
