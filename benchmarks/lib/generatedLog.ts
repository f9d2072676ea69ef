import type pg from 'pg';
import { createUser } from '../../lib/accounts/users.js';
import { createStation } from '../../lib/accounts/stations.js';
import { createToken } from '../../lib/auth/tokens.js';
import { createKey } from '../../lib/auth/keys.js';
import { inQsoTransaction } from '../../lib/qso/writeLock.js';
import { secondsSince } from './scratch.js';
import type { Scope } from '../../lib/auth/scopes.js';

/** The generated logs of the list benchmarks: who owns what. */
export interface GeneratedLog {
  ownerId: number;
  /** The owner's locations: Home (90 % of the owner's QSOs), Portable (10 %), Empty (none). */
  home: number;
  portable: number;
  empty: number;
  otherStation: number;
  /** A v2 token of the owner (qso:read, qso:write, confirmation:read) and a v1 read-write key. */
  token: string;
  v1Key: string;
}

/**
 * `qsos` QSOs of the token's owner and as many of another user, interleaved in the table as a
 * shared server holds them, built by one INSERT … SELECT generate_series, then VACUUM ANALYZE.
 */
export async function generateLogs(db: pg.Pool, qsos: number): Promise<GeneratedLog> {
  const earlier = await generatedEarlier(db);
  if (earlier !== null) return earlier;
  const ownerId = await createUser(db, { username: 'owner', callsign: 'DL1OWN' });
  const home = await createStation(db, { userId: ownerId, name: 'Home', callsign: 'DL1OWN', gridsquare: 'JO62QM' });
  const portable = await createStation(db, { userId: ownerId, name: 'Portable', callsign: 'DL1OWN/P', gridsquare: 'JO63' });
  const otherId = await createUser(db, { username: 'other', callsign: 'DL2OTH' });
  const otherStation = await createStation(db, { userId: otherId, name: 'Home', callsign: 'DL2OTH', gridsquare: 'JO40' });
  const { token } = await createToken(db, { userId: ownerId, createdBy: ownerId, name: 'bench', scopes: TOKEN_SCOPES, expiresAt: null });
  const empty = await createStation(db, { userId: ownerId, name: 'Empty', callsign: 'DL1OWN', gridsquare: 'JO62QM' });
  const { key: v1Key } = await createKey(db, ownerId, 'rw');

  const start = process.hrtime.bigint();
  // Per user one QSO every 2.5 minutes from 2015 on (so time_on never repeats within a station);
  // 20,000 distinct calls, each in a gridsquare of its own (some 20,000 squares), all of one DXCC
  // entity (291, the United States, as K…X calls are); 11 bands, 1 % satellite; CW, SSB
  // (USB/LSB), FT8, MFSK/FT4, RTTY; confirmed by LoTW 15 %, eQSL 10 %, Clublog 8 %, QRZ 5 %,
  // card 3 %. The owner's QSOs go 90 % to Home, 10 % to Portable. Rows of both users alternate
  // in the table.
  await inQsoTransaction(db, [ownerId, otherId], async (client) => {
    await client.query('SELECT setseed(0.42)');
    await client.query(
    `INSERT INTO qso (station_id, call, time_on, time_off, band, mode, submode, freq, prop_mode, rst_sent, rst_rcvd, gridsquare, dxcc,
                      operator, station_callsign, lotw_qsl_rcvd, eqsl_qsl_rcvd, clublog_qso_download_status,
                      qrzcom_qso_download_status, qsl_rcvd)
     SELECT CASE WHEN owner THEN CASE WHEN random() < 0.9 THEN $1::int ELSE $2::int END ELSE $3::int END,
            'K' || n || 'X', time_on, time_on + interval '1 minute',
            band, mode, CASE mode WHEN 'SSB' THEN (ARRAY['USB','LSB'])[1 + floor(random() * 2)::int] WHEN 'MFSK' THEN 'FT4' END,
            14074000, CASE WHEN random() < 0.01 THEN 'SAT' END, '59', '59',
            chr(65 + n % 18) || chr(65 + n / 18 % 18) || (n / 324 % 10) || (n / 3240 % 10), 291,
            CASE WHEN owner THEN 'DL1OWN' ELSE 'DL2OTH' END, CASE WHEN owner THEN 'DL1OWN' ELSE 'DL2OTH' END,
            CASE WHEN random() < 0.15 THEN 'Y' ELSE 'N' END, CASE WHEN random() < 0.10 THEN 'Y' ELSE 'N' END,
            CASE WHEN random() < 0.08 THEN 'Y' END, CASE WHEN random() < 0.05 THEN 'Y' END, CASE WHEN random() < 0.03 THEN 'Y' ELSE 'N' END
       FROM (SELECT owner, floor(random() * 20000)::int AS n, timestamp '2015-01-01' + g * interval '150 seconds' AS time_on,
                    (ARRAY['160m','80m','40m','30m','20m','17m','15m','12m','10m','6m','2m'])[1 + floor(random() * 11)::int] AS band,
                    (ARRAY['CW','SSB','FT8','MFSK','RTTY'])[1 + floor(random() * 5)::int] AS mode
               FROM generate_series(1, $4::int) g CROSS JOIN (VALUES (true), (false)) AS o(owner)
              ORDER BY g) raw`,
    [home, portable, otherStation, qsos],
    );
  });
  await dateConfirmations(db, [ownerId, otherId]);
  await db.query('VACUUM ANALYZE qso');
  console.log(`generated ${2 * qsos} QSOs in ${secondsSince(start).toFixed(0)} s`);
  return { ownerId, home, portable, empty, otherStation, token, v1Key };
}

const TOKEN_SCOPES: Scope[] = ['qso:read', 'qso:write', 'confirmation:read'];

/**
 * Gives the generated confirmations (status 'Y') their received dates, 0–399 days after the QSO
 * (from its id, so the same in every database), except 2 % of the cards, received undated as
 * some loggers record them (an odd modulus: the two users' ids alternate): the confirmation
 * list's rows. An UPDATE through the write lock, so
 * the counting trigger keeps the count tables exact. Databases generated before 2026-12-06 had
 * no dates; one that has them is left alone. True when it dated.
 */
async function dateConfirmations(db: pg.Pool, userIds: readonly number[]): Promise<boolean> {
  const { rows: [dated] } = await db.query('SELECT 1 FROM qso WHERE lotw_qslrdate IS NOT NULL LIMIT 1');
  if (dated) return false;
  const start = process.hrtime.bigint();
  const after = (salt: number) => `(time_on::date + ((id * ${salt}) % 400)::int)`;
  const { rowCount } = await inQsoTransaction(db, userIds, (client) => client.query(
    `UPDATE qso SET lotw_qslrdate = CASE WHEN lotw_qsl_rcvd = 'Y' THEN ${after(7919)} END,
                    eqsl_qslrdate = CASE WHEN eqsl_qsl_rcvd = 'Y' THEN ${after(6271)} END,
                    qslrdate = CASE WHEN qsl_rcvd = 'Y' AND id % 49 <> 0 THEN ${after(5381)} END,
                    qrzcom_qso_download_date = CASE WHEN qrzcom_qso_download_status = 'Y' THEN ${after(4513)} END,
                    clublog_qso_download_date = CASE WHEN clublog_qso_download_status = 'Y' THEN ${after(3833)} END
      WHERE 'Y' IN (lotw_qsl_rcvd, eqsl_qsl_rcvd, qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status)`,
  ));
  console.log(`dated the confirmations of ${rowCount} QSOs in ${secondsSince(start).toFixed(0)} s`);
  return true;
}

/**
 * The logs of a database kept by an earlier run (`--reuse`), with a new token and key for this
 * run (only their hashes are stored), or null in a new database.
 */
async function generatedEarlier(db: pg.Pool): Promise<GeneratedLog | null> {
  const { rows: [found] } = await db.query<{ owner_id: number; other_id: number }>(
    `SELECT o.id AS owner_id, t.id AS other_id FROM users o, users t WHERE o.username = 'owner' AND t.username = 'other'`,
  );
  if (!found) return null;
  if (await dateConfirmations(db, [found.owner_id, found.other_id])) await db.query('VACUUM ANALYZE qso');
  const station = async (userId: number, name: string): Promise<number> =>
    (await db.query<{ id: number }>('SELECT id FROM stations WHERE user_id = $1 AND name = $2', [userId, name])).rows[0]!.id;
  const { token } = await createToken(db, { userId: found.owner_id, createdBy: found.owner_id, name: 'bench', scopes: TOKEN_SCOPES, expiresAt: null });
  const { rows: [counted] } = await db.query<{ n: string }>('SELECT count(*) AS n FROM qso');
  console.log(`reusing the generated log of ${counted!.n} QSOs`);
  return {
    ownerId: found.owner_id,
    home: await station(found.owner_id, 'Home'),
    portable: await station(found.owner_id, 'Portable'),
    empty: await station(found.owner_id, 'Empty'),
    otherStation: await station(found.other_id, 'Home'),
    token,
    v1Key: (await createKey(db, found.owner_id, 'rw')).key,
  };
}
