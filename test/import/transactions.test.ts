import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import t from 'tap';
import { formatAdifRecord } from '../../lib/adif/writer.js';
import { importAdif } from '../../lib/import/pipeline.js';
import { loadTargetStation } from '../../lib/accounts/targetStations.js';
import { insertOneQso } from '../../lib/import/insertOne.js';
import { InsertBatcher } from '../../lib/import/insertBatcher.js';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { adifDocument, importText, qso, qsoCount, type Fields } from './helpers.js';

/**
 * An ADIF upload under the test's control: the first records go out when the import starts
 * reading (`started`), the rest when the test calls `finish`, or the upload breaks with `fail`.
 */
function controlledInput(first: Fields[]) {
  let reached!: () => void;
  const started = new Promise<void>((resolve) => (reached = resolve));
  let sentFirst = false;
  const input = new Readable({
    read() {
      if (sentFirst) return;
      sentFirst = true;
      this.push(Buffer.from(adifDocument(first)));
      reached();
    },
  });
  return {
    input,
    started,
    finish(rest: Fields[]) {
      input.push(Buffer.from(rest.map((fields) => formatAdifRecord(fields)).join('')));
      input.push(null);
    },
    fail(error: Error) {
      input.destroy(error);
    },
  };
}

/** The server process of the connection running the import's COPY. */
async function copyBackend(pool: pg.Pool): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const { rows } = await pool.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'COPY qso %'",
    );
    if (rows.length > 0) return rows[0]!.pid;
    await sleep(20);
  }
  throw new Error('no import is running');
}

const records = (prefix: string, count: number): Fields[] =>
  Array.from({ length: count }, (_, i) => qso(`${prefix}${i}`, '20240301', '1015', '20m', 'CW'));

t.test('import transactions', async (t) => {
  const db = await testDatabase(t);
  const pool = db.pool;
  const inserts = new InsertBatcher(pool);

  t.test('two concurrent imports of one file into one location store each QSO once', async (t) => {
    const op = await createOperator(pool);
    const document = adifDocument(records('DL1C', 300));
    const [first, second] = await Promise.all([
      importText(pool, document, { stationId: op.stationId }),
      importText(pool, document, { stationId: op.stationId }),
    ]);
    t.equal(first.imported + second.imported, 300);
    t.equal(first.skipped + second.skipped, 300);
    t.same([first.imported, second.imported].sort((a, b) => a - b), [0, 300], 'one waits for the other, then finds only duplicates');
    t.equal(await qsoCount(pool, op.stationId), 300);
  });

  t.test('a QSO a concurrent writer stores first is skipped by the unique index', async (t) => {
    const op = await createOperator(pool);
    const twin = qso('DL2RACE', '20240301', '1016', '20m', 'CW');
    const upload = controlledInput([qso('DL2FIRST', '20240301', '1015', '20m', 'CW')]);
    const importing = importAdif(pool, upload.input, { stationId: op.stationId, frequencyUnit: 'MHz' });
    await upload.started;
    const single = await insertOneQso(inserts, Object.fromEntries(twin), await loadTargetStation(pool, op.stationId), { frequencyUnit: 'MHz' });
    t.ok('id' in single, 'the single create is not blocked by the running import');
    upload.finish([twin]);
    t.match(await importing, { parsed: 2, imported: 1, skipped: 1 });
    t.equal(await qsoCount(pool, op.stationId), 2);
  });

  t.test('an upload that breaks off (client gone) rolls everything back', async (t) => {
    const op = await createOperator(pool);
    const upload = controlledInput(records('DL3F', 50));
    const importing = importAdif(pool, upload.input, { stationId: op.stationId, frequencyUnit: 'MHz' });
    await upload.started;
    await sleep(50);
    upload.fail(new Error('upload broke off'));
    await t.rejects(importing, /upload broke off/);
    t.equal(await qsoCount(pool, op.stationId), 0, 'nothing stored');
    t.match(await importText(pool, adifDocument(records('DL3G', 2)), { stationId: op.stationId }), { imported: 2 }, 'the pool still works');
  });

  t.test('an input that fails outright (unreadable file) stores nothing', async (t) => {
    const op = await createOperator(pool);
    const input = new Readable({
      read() {
        this.destroy(new Error('EIO: i/o error, read'));
      },
    });
    await t.rejects(importAdif(pool, input, { stationId: op.stationId, frequencyUnit: 'MHz' }), /EIO/);
    t.equal(await qsoCount(pool, op.stationId), 0);
  });

  t.test('a database failure mid-COPY rolls everything back', async (t) => {
    const op = await createOperator(pool);
    const upload = controlledInput(records('DL5F', 50));
    const importing = importAdif(pool, upload.input, { stationId: op.stationId, frequencyUnit: 'MHz' });
    // Expect the failure before provoking it: the import may reject while the kill is still
    // being answered, and a rejection nobody awaits yet would count as unhandled.
    const failed = t.rejects(importing, /terminat|Connection|closed|EPIPE|ECONNRESET/i, 'a severed connection fails the import (the error depends on when the write noticed)');
    await upload.started;
    const pid = await copyBackend(pool);
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    upload.finish(records('DL5G', 50));
    await failed;
    t.equal(await qsoCount(pool, op.stationId), 0);
  });

  t.test('a database error in the final INSERT rolls everything back', async (t) => {
    const op = await createOperator(pool);
    await pool.query(`CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.call = 'DL6BOOM' THEN RAISE EXCEPTION 'refused by test trigger'; END IF; RETURN NEW; END $$`);
    await pool.query('CREATE TRIGGER refuse_boom BEFORE INSERT ON qso FOR EACH ROW EXECUTE FUNCTION refuse_boom()');
    t.teardown(() => pool.query('DROP TRIGGER refuse_boom ON qso; DROP FUNCTION refuse_boom()'));
    const document = adifDocument([...records('DL6A', 20), qso('DL6BOOM', '20240301', '1015', '20m', 'CW'), ...records('DL6B', 20)]);
    await t.rejects(importText(pool, document, { stationId: op.stationId }), /refused by test trigger/);
    t.equal(await qsoCount(pool, op.stationId), 0);
  });

  t.test('a running import locks nothing other users write to', async (t) => {
    const op = await createOperator(pool);
    const other = await createOperator(pool);
    const upload = controlledInput(records('DL7L', 20));
    const importing = importAdif(pool, upload.input, { stationId: op.stationId, frequencyUnit: 'MHz' });
    await upload.started;
    const pid = await copyBackend(pool);
    // Relations the import created are not visible yet to other sessions: they have no name here.
    const { rows: locks } = await pool.query<{ lock: string }>(
      `SELECT DISTINCT CASE WHEN l.locktype = 'advisory' THEN 'advisory'
                            WHEN c.relname IS NULL THEN 'own uncommitted relation'
                            WHEN c.relname LIKE 'qso%' THEN 'qso'
                            WHEN c.relname LIKE 'stations%' THEN 'stations'
                            ELSE c.relname END || ' ' || l.mode AS lock
       FROM pg_locks l LEFT JOIN pg_class c ON c.oid = l.relation
       WHERE l.pid = $1 AND l.granted AND l.locktype IN ('relation', 'advisory') ORDER BY 1`,
      [pid],
    );
    const held = locks.map((row) => row.lock);
    t.same(
      held.filter((lock) => !lock.startsWith('own uncommitted')),
      ['advisory ExclusiveLock', 'advisory ShareLock', 'qso AccessShareLock', 'qso RowExclusiveLock', 'stations AccessShareLock', 'stations RowShareLock'],
      'qso and its indexes: read locks of the duplicate-key scan, the row-write lock of its COPY (which every writer shares); the location: FOR KEY SHARE; one advisory lock per location; shared writer locks for the change feed',
    );
    t.ok(held.includes('own uncommitted relation AccessExclusiveLock'), 'the staging table, private to the import');

    t.ok('id' in (await insertOneQso(inserts, Object.fromEntries(qso('DL7X', '20240301', '1015', '20m', 'CW')), await loadTargetStation(pool, other.stationId), { frequencyUnit: 'MHz' })));
    t.ok('id' in (await insertOneQso(inserts, Object.fromEntries(qso('DL7Y', '20240301', '1015', '20m', 'CW')), await loadTargetStation(pool, op.stationId), { frequencyUnit: 'MHz' })));
    await pool.query('UPDATE stations SET name = $2 WHERE id = $1', [op.stationId, 'renamed']);
    const client = await pool.connect();
    try {
      await client.query("SET lock_timeout = '200ms'");
      await t.rejects(client.query('DELETE FROM stations WHERE id = $1', [op.stationId]), { code: '55P03' }, 'the location cannot be deleted under the import');
    } finally {
      client.release();
    }
    upload.finish(records('DL7M', 20));
    t.match(await importing, { imported: 40 });
    t.equal(await qsoCount(pool, op.stationId), 41);
  });
});
