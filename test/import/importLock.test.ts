import { Readable } from 'node:stream';
import t from 'tap';
import { formatAdifRecord } from '../../lib/adif/writer.js';
import { importAdif } from '../../lib/import/pipeline.js';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { adifDocument, qso, type Fields } from './helpers.js';

/**
 * The per-location import lock (lockStationForImport): two imports of the same QSOs in opposite
 * orders, started together, would insert the same keys from both ends and meet in the middle,
 * each waiting for a key the other holds: a deadlock, and PostgreSQL aborts one of them. With
 * the lock the second waits, then finds every QSO a duplicate. Small batches (20 rows, one per
 * input chunk) make the two interleave within a few milliseconds; many rounds make it certain.
 * Checked: with the lock removed, 8 rounds of 8 failed with "deadlock detected".
 */

const ROUNDS = 5;
const QSOS = 200;
const BATCH = 20;

function chunked(records: Fields[]): Readable {
  const chunks = [Buffer.from(adifDocument([]))];
  for (let at = 0; at < records.length; at += BATCH) chunks.push(Buffer.from(records.slice(at, at + BATCH).map((r) => formatAdifRecord(r)).join('')));
  return Readable.from(chunks);
}

t.test('opposite orders into one location, concurrently: no deadlock, every QSO once', async (t) => {
  const db = await testDatabase(t);
  const op = await createOperator(db.pool);
  const failures: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const records = Array.from({ length: QSOS }, (_, i) => qso(`R${round}K${i}`, '20240301', '1200', '20m', 'CW'));
    const options = { stationId: op.stationId, frequencyUnit: 'MHz' as const, rowsPerBatch: BATCH };
    const results = await Promise.allSettled([
      importAdif(db.pool, chunked(records), options),
      importAdif(db.pool, chunked([...records].reverse()), options),
    ]);
    let imported = 0;
    for (const result of results) {
      if (result.status === 'rejected') failures.push(`round ${round}: ${(result.reason as Error).message}`);
      else imported += result.value.imported;
    }
    if (imported !== QSOS) failures.push(`round ${round}: ${imported} of ${QSOS} imported`);
  }
  t.same(failures, [], 'no import failed, each round stored its QSOs once');
  const { rows } = await db.pool.query<{ total: number; distinct_calls: number }>(
    'SELECT count(*)::int AS total, count(DISTINCT call)::int AS distinct_calls FROM qso WHERE station_id = $1',
    [op.stationId],
  );
  t.same(rows[0], { total: ROUNDS * QSOS, distinct_calls: ROUNDS * QSOS }, 'every QSO exactly once');
});
