import t from 'tap';
import pg from 'pg';
import { normalizeRecord } from '../../lib/adif/normalize.js';
import { createKey, keyHash, lookupKeys } from '../../lib/auth/keys.js';
import { hashSecret } from '../../lib/auth/secrets.js';
import { lookupTokens } from '../../lib/auth/tokens.js';
import { loadTargetStation } from '../../lib/accounts/targetStations.js';
import { fillDxcc, fillStation } from '../../lib/import/enrich.js';
import { InsertBatcher } from '../../lib/import/insertBatcher.js';
import { newRow, rowValues } from '../../lib/import/rowValues.js';
import { findVisibleQso } from '../../lib/qso/repository.js';
import { changeBounds } from '../../lib/qso/changeBounds.js';
import { beginQsoWrite, beginQsoWriteForStations } from '../../lib/qso/writeLock.js';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { endPool } from '../../lib/db/poolEnd.js';

/**
 * The statements every small request runs (the token or key look-up, a create's INSERT, alone
 * or batched with others, the read of one QSO, the cut every list and feed page asks first, the
 * declaration every QSO-writing transaction starts with) are named so that a connection prepares them
 * once; they must also keep one plan. PostgreSQL plans a named statement again at every
 * execution while its generic plan looks dearer than the plans for the values given, as it did
 * for the array forms (0.5–0.8 ms of the database's CPU each time) until their arrays were made
 * opaque (lib/db/opaqueArray.ts). pg_prepared_statements counts both kinds of plan per
 * connection.
 */
const RUNS = 12;

t.test('the statements of a small request keep one plan per connection', async (t) => {
  const db = await testDatabase(t);
  const operator = await createOperator(db.pool);
  const station = await loadTargetStation(db.pool, operator.stationId);
  const { key } = await createKey(db.pool, operator.userId, 'rw');
  // One connection: every execution below is on the backend whose plans are counted.
  const connection = new pg.Pool({ ...db.pool.options, max: 1 });
  // Ended here, before the test database is dropped (its teardown comes first): a connection
  // still open then is terminated under an idle client, an error nobody listens to.
  try {
    const inserts = new InsertBatcher(connection);
    for (let i = 0; i < RUNS; i++) {
      t.equal((await lookupTokens(connection, [hashSecret(operator.token)])).get(hashSecret(operator.token))?.user_id, operator.userId);
      t.equal((await lookupKeys(connection, [keyHash(key)!])).get(keyHash(key)!)?.userId, operator.userId);
      const { qso } = normalizeRecord({ call: `DL${i}PLN`, qso_date: '20240301', time_on: '1200', band: '20m', mode: 'CW' }, { frequencyUnit: 'MHz' });
      fillDxcc(qso!);
      fillStation(qso!, station, null, null);
      const [outcome] = await inserts.insert({ stationId: station.id, ownerId: station.userId, rows: [rowValues(qso!, newRow()) as string[]], returnRows: true });
      t.ok(outcome && 'id' in outcome && outcome.row?.call === `DL${i}PLN`, `create ${i} stored`);
      const id = outcome && 'id' in outcome ? outcome.id : 0;
      t.equal((await findVisibleQso(connection, { stationIds: [station.id], operator: null }, id))?.call, `DL${i}PLN`, `QSO ${i} read back`);

      // The array forms, with a number of elements that changes from one execution to the next.
      const unknown = Array.from({ length: 1 + (i % 4) }, (_, n) => hashSecret(`unknown ${i} ${n}`));
      t.equal((await lookupTokens(connection, [hashSecret(operator.token), ...unknown])).size, 1, `token look-up ${i} of ${unknown.length + 1}`);
      t.equal((await lookupKeys(connection, [keyHash(key)!, ...unknown])).size, 1, `key look-up ${i} of ${unknown.length + 1}`);
      const locations = [station.id, ...Array.from({ length: i % 4 }, (_, n) => 1_000_000 + n)];
      t.ok((await changeBounds(connection, locations)).idBound > id, `the cut ${i} of ${locations.length} locations lies above the stored QSO`);
      // The declarations every PATCH, DELETE, import and merge starts with.
      const writer = await connection.connect();
      try {
        await writer.query('BEGIN');
        await beginQsoWrite(writer, [operator.userId]);
        await beginQsoWriteForStations(writer, locations);
      } finally {
        await writer.query('ROLLBACK');
        writer.release();
      }
      const rows = Array.from({ length: 2 + (i % 4) }, (_, n) => {
        const { qso: batched } = normalizeRecord({ call: `DL${i}B${n}`, qso_date: '20240302', time_on: '1200', band: '20m', mode: 'CW' }, { frequencyUnit: 'MHz' });
        fillStation(batched!, station, null, null);
        return rowValues(batched!, newRow()) as string[];
      });
      const outcomes = await inserts.insert({ stationId: station.id, ownerId: station.userId, rows, returnRows: false });
      t.equal(outcomes.filter((stored) => 'id' in stored).length, rows.length, `batch ${i} of ${rows.length} stored`);
    }

    const { rows } = await connection.query<{ name: string; generic_plans: string; custom_plans: string }>(
      'SELECT name, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY name');
    const plans = new Map(rows.map((row) => [row.name, { generic: Number(row.generic_plans), custom: Number(row.custom_plans) }]));
    for (const name of ['token-lookup-one', 'key-lookup-one', 'small-insert-one', 'qso-by-id', 'token-lookup', 'key-lookup', 'small-insert', 'change-bounds', 'qso-write-begin', 'qso-write-begin-for-stations']) {
      const counted = plans.get(name);
      t.ok(counted, `${name} is prepared on the connection`);
      t.equal((counted?.generic ?? 0) + (counted?.custom ?? 0), RUNS, `${name} ran ${RUNS} times`);
      t.ok((counted?.custom ?? RUNS) <= 5, `${name}: planned for its values at most five times (PostgreSQL's trial), not ${counted?.custom}`);
    }
  } finally {
    await endPool(connection);
  }
});
