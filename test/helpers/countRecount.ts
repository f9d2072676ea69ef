import type pg from 'pg';
import { COUNT_TABLES } from '../../lib/db/countTables.js';

/**
 * Every row of every count table against a fresh count of qso (each table's own columns, the
 * bucket written out here rather than taken from the trigger's qso_count_key): what differs.
 */
export async function countTableMismatches(db: pg.Pool): Promise<string[]> {
  const bucket = `band, mode, submode, CASE WHEN prop_mode = 'SAT' THEN 'SAT' END AS prop_mode,
    CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END AS qsl_rcvd, CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END AS lotw_qsl_rcvd,
    CASE WHEN eqsl_qsl_rcvd = 'Y' THEN 'Y' END AS eqsl_qsl_rcvd,
    CASE WHEN qrzcom_qso_download_status = 'Y' THEN 'Y' END AS qrzcom_qso_download_status,
    CASE WHEN clublog_qso_download_status = 'Y' THEN 'Y' END AS clublog_qso_download_status`;
  const qslColumns = 'qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status';
  const bucketColumns = `band, mode, submode, prop_mode, ${qslColumns}`;
  // Each table: its key columns, and the rows of qso it counts (one per QSO, or per received type).
  const monthly = `SELECT station_id, operator, date_trunc('month', time_on) AS month, ${bucket} FROM qso`;
  const tables: Array<[string, string, string]> = [
    ['qso_counts', `station_id, operator, ${bucketColumns}`, `SELECT station_id, operator, ${bucket} FROM qso`],
    ['qso_id_counts', 'station_id, operator, block', 'SELECT station_id, operator, id / 4096 AS block FROM qso'],
    ['qso_month_counts', `station_id, operator, month, ${qslColumns}`, monthly],
    ['qso_dxcc_counts', 'station_id, operator, dxcc, qsl_rcvd, lotw_qsl_rcvd', `SELECT station_id, operator, dxcc, ${bucket} FROM qso`],
  ];
  const found: string[] = [];
  const declared = COUNT_TABLES.map(({ name }) => name).sort().join(', ');
  if (tables.map(([table]) => table).sort().join(', ') !== declared) found.push(`the tables checked here are not those declared: ${declared}`);
  for (const [table, columns, qsoRows] of tables) {
    // EXCEPT compares NULLs as equal; groups summing to zero are no QSOs.
    const counted = `SELECT ${columns}, count(*) AS n FROM (${qsoRows}) k GROUP BY ${columns}`;
    const summed = `SELECT ${columns}, sum(n) AS n FROM ${table} GROUP BY ${columns} HAVING sum(n) <> 0`;
    const { rows } = await db.query<{ side: string; key: string }>(
      `SELECT 'counted' AS side, d::text AS key FROM (${counted} EXCEPT ALL ${summed}) d
       UNION ALL SELECT 'summed', d::text FROM (${summed} EXCEPT ALL ${counted}) d`,
    );
    for (const row of rows) found.push(`${table}, only ${row.side}: ${row.key}`);
  }
  return found;
}
