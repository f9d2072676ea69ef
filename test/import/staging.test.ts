import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import t, { type Test } from 'tap';
import { normalizeRecord } from '../../lib/adif/normalize.js';
import { CopyRows, type RowChunk } from '../../lib/import/copyRows.js';
import { newStagingRow, rowValues } from '../../lib/import/rowValues.js';
import { createStagingTable, StagingWriter } from '../../lib/import/staging.js';
import { testDatabase } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';

/**
 * The staging writer on its own, with small limits shaped like the real ones: batches of 10 rows
 * and a queue of about 15 (a little more than a batch, as 8 MiB is to 25,000 rows), and slabs of
 * 64 bytes, so that every row is spread over several reused slabs.
 * Each batch's COPY into qso first takes advisory lock (4242, n) for its statement number n,
 * so the test decides when batch n may be stored and can watch the producer meanwhile.
 */

const LOCK_CLASS = 4242;

/** One COPY row to insert per call, as the import formats them (a chunk of its own). */
function copyRow(stationId: number, call: string): RowChunk {
  const { qso } = normalizeRecord({ CALL: call, QSO_DATE: '20240301', TIME_ON: '1015', BAND: '20m', MODE: 'CW' }, { frequencyUnit: 'MHz' });
  const rows = new CopyRows(stationId);
  rows.add(rowValues(qso!, newStagingRow()));
  return rows.take()[0]!;
}

/** Calls of one length, so that every row has the same size. */
const callsign = (prefix: string, n: number): string => `${prefix}${String(n).padStart(3, '0')}`;

/** A source of `count` rows, one per read, that counts how many it has handed out. */
function rowSource(stationId: number, prefix: string, count: number) {
  const source = { produced: 0, stream: null as unknown as Readable };
  source.stream = new Readable({
    objectMode: true,
    highWaterMark: 1, // no read-ahead: `produced` is what the writer has taken
    read() {
      if (source.produced === count) return void this.push(null);
      this.push(copyRow(stationId, callsign(prefix, source.produced)));
      source.produced++;
    },
  });
  return source;
}

/** Waits until `read()` has not changed for a while (the pipeline has come to rest). */
async function settled(read: () => number): Promise<number> {
  let last = read();
  for (let quiet = 0; quiet < 10; ) {
    await sleep(20);
    const now = read();
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
  return last;
}

/** A connection in a transaction with a staging table, as an import has; closed when the test ends. */
async function openImport(t: Test, pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  // Closed rather than returned: a failed case may leave its transaction aborted.
  t.teardown(() => client.release(true));
  await client.query('BEGIN');
  await client.query('SELECT qso_write_begin(ARRAY(SELECT DISTINCT user_id FROM stations))');
  await createStagingTable(client);
  return client;
}

t.test('staging writer', async (t) => {
  const db = await testDatabase(t);
  const pool = db.pool;
  await pool.query(`CREATE SEQUENCE staging_test_batch;
    CREATE FUNCTION staging_test_gate() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE n bigint := nextval('staging_test_batch');
      BEGIN
        PERFORM pg_advisory_lock(${LOCK_CLASS}, n::int);
        PERFORM pg_advisory_unlock(${LOCK_CLASS}, n::int);
        RETURN NULL;
      END $$;
    CREATE TRIGGER staging_test_gate BEFORE INSERT ON qso FOR EACH STATEMENT EXECUTE FUNCTION staging_test_gate();
    CREATE FUNCTION staging_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by test gate'; END $$;
    CREATE TRIGGER staging_test_refuse BEFORE INSERT ON qso FOR EACH ROW WHEN (NEW.call = 'DL9FAIL') EXECUTE FUNCTION staging_test_refuse()`);
  const rowBytes = Buffer.byteLength(copyRow(1, callsign('DL9Q', 0)).text);
  const limits = { rowsPerBatch: 10, batchBytes: 1024 * 1024, queuedBytes: 15 * rowBytes, slabBytes: 64 };

  /** Holds the gates of the next `count` batches on a connection of its own, until the test ends. */
  async function closeGates(t: Test, count: number) {
    const gate = await pool.connect();
    t.teardown(async () => {
      await gate.query('SELECT pg_advisory_unlock_all()');
      gate.release();
    });
    const { rows } = await gate.query<{ next: string }>("SELECT last_value + CASE WHEN is_called THEN 1 ELSE 0 END AS next FROM staging_test_batch");
    const first = Number(rows[0]!.next);
    for (let n = first; n < first + count; n++) await gate.query('SELECT pg_advisory_lock($1, $2)', [LOCK_CLASS, n]);
    return { open: (index: number) => gate.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, first + index]) };
  }

  t.test('the producer refills the queue while every batch is moved, not only once it is empty', async (t) => {
    const op = await createOperator(pool);
    const client = await openImport(t, pool);
    const gates = await closeGates(t, 6);
    const source = rowSource(op.stationId, 'DL9Q', 60);
    const writer = new StagingWriter(client, op.stationId, limits);
    const done = pipeline(source.stream, writer);

    // Beyond the rows of the batches begun: the 15 queued, and the one chunk the stream holds.
    const queuedWhileFirst = (await settled(() => source.produced)) - 10;
    t.ok(queuedWhileFirst >= 15 && queuedWhileFirst <= 16, `while batch 1 waits, the producer fills the queue and stops there (${queuedWhileFirst} rows)`);
    await gates.open(0);
    const queuedWhileSecond = (await settled(() => source.produced)) - 20;
    t.ok(queuedWhileSecond >= 15 && queuedWhileSecond <= 16, `while batch 2 waits, it refills what batch 2 took (${queuedWhileSecond} rows)`);
    for (let gate = 1; gate < 6; gate++) await gates.open(gate);
    await done;

    t.equal(writer.stored.stored, 60);
    await client.query('COMMIT');
    const { rows } = await pool.query<{ call: string; id: string }>('SELECT call, id FROM qso WHERE station_id = $1 ORDER BY id', [op.stationId]);
    t.same(rows.map((row) => row.call), Array.from({ length: 60 }, (_, i) => callsign('DL9Q', i)), 'every row stored once, in the order written');
    t.equal(Number(rows[0]!.id), writer.stored.firstId);
    t.equal(Number(rows[59]!.id), writer.stored.lastId);
  });

  t.test('a batch also ends at its byte limit, whatever its row count', async (t) => {
    const op = await createOperator(pool);
    const client = await openImport(t, pool);
    const { rows: before } = await pool.query<{ last: string }>('SELECT last_value AS last FROM staging_test_batch');
    const writer = new StagingWriter(client, op.stationId, { ...limits, rowsPerBatch: 1000, batchBytes: 10 * rowBytes });
    await pipeline(rowSource(op.stationId, 'DL9S', 30).stream, writer);
    await client.query('COMMIT');
    const { rows: after } = await pool.query<{ last: string }>('SELECT last_value AS last FROM staging_test_batch');
    t.equal(Number(after[0]!.last) - Number(before[0]!.last), 3, 'three COPYs of 10 rows');
    t.equal(writer.stored.stored, 30);
  });

  t.test('a batch never ends inside a row, though slabs cut rows apart', async (t) => {
    const op = await createOperator(pool);
    const client = await openImport(t, pool);
    // Chunks of 5 rows into slabs of 7.5 rows: every other chunk is split inside a row, and a
    // batch of 8 rows fills up inside such a split chunk.
    const chunks = Array.from({ length: 20 }, (_, c) => ({
      kind: 'insert' as const,
      text: Array.from({ length: 5 }, (_, r) => copyRow(op.stationId, callsign('DL9R', c * 5 + r)).text).join(''),
    }));
    const writer = new StagingWriter(client, op.stationId, { ...limits, rowsPerBatch: 8, slabBytes: Math.floor(7.5 * rowBytes) });
    await pipeline(Readable.from(chunks, { objectMode: true }), writer);
    await client.query('COMMIT');
    const { rows } = await pool.query<{ call: string }>('SELECT call FROM qso WHERE station_id = $1 ORDER BY id', [op.stationId]);
    t.same(rows.map((row) => row.call), Array.from({ length: 100 }, (_, i) => callsign('DL9R', i)), 'every row stored whole, in order');
  });

  t.test('a batch whose COPY into qso loses a race is stored through the staging table, the twin left out', async (t) => {
    const op = await createOperator(pool);
    const client = await openImport(t, pool);
    // A single create commits a key of the second batch after the import's duplicate index was
    // loaded (this writer has none): that batch's COPY into qso meets it in the unique index.
    await pool.query(
      `WITH w AS MATERIALIZED (SELECT qso_write_begin(ARRAY(SELECT user_id FROM stations WHERE id = $1)))
       INSERT INTO qso (station_id, call, time_on, band, mode) SELECT $1, $2, '2024-03-01 10:15', '20m', 'CW' FROM w`,
      [op.stationId, callsign('DL9T', 15)],
    );
    const writer = new StagingWriter(client, op.stationId, limits);
    await pipeline(rowSource(op.stationId, 'DL9T', 30).stream, writer);
    t.equal(writer.stored.stored, 29, 'every row but the twin stored');
    await client.query('COMMIT');
    const { rows } = await pool.query<{ call: string; id: string }>('SELECT call, id FROM qso WHERE station_id = $1 ORDER BY id', [op.stationId]);
    const imported = rows.slice(1);
    t.same(
      imported.map((row) => row.call),
      Array.from({ length: 30 }, (_, i) => callsign('DL9T', i)).filter((call) => call !== callsign('DL9T', 15)),
      'the other rows once each, in the order written',
    );
    t.equal(writer.stored.firstId, Number(imported[0]!.id));
    t.equal(writer.stored.lastId, Number(imported[imported.length - 1]!.id));
    const { rows: counted } = await pool.query<{ n: number }>('SELECT sum(n)::int AS n FROM qso_counts WHERE station_id = $1', [op.stationId]);
    t.equal(counted[0]!.n, 30, 'the counts hold each stored QSO once (the undone COPY counted nothing)');
  });

  t.test('a database error while the producer is held fails the pipeline instead of hanging', async (t) => {
    const op = await createOperator(pool);
    const client = await openImport(t, pool);
    const gates = await closeGates(t, 2);
    const rows = ['DL9A0', 'DL9A1', 'DL9A2', 'DL9A3', 'DL9A4', 'DL9A5', 'DL9A6', 'DL9A7', 'DL9A8', 'DL9A9', 'DL9FAIL'];
    let produced = 0;
    const source = new Readable({
      objectMode: true,
      highWaterMark: 1,
      read() {
        this.push(copyRow(op.stationId, produced < rows.length ? rows[produced]! : `DL9B${produced}`));
        produced++;
        if (produced === 60) this.push(null);
      },
    });
    const done = pipeline(source, new StagingWriter(client, op.stationId, limits));
    const failed = t.rejects(done, /refused by test gate/);
    await settled(() => produced);
    await gates.open(0);
    await settled(() => produced);
    t.ok(produced < 60, `the producer is held at a full queue (${produced} of 60 rows)`);
    await gates.open(1);
    await failed;
    await client.query('ROLLBACK');
    const { rows: stored } = await pool.query('SELECT 1 FROM qso WHERE station_id = $1', [op.stationId]);
    t.equal(stored.length, 0, 'the caller rolls back: nothing stored');
  });
});
