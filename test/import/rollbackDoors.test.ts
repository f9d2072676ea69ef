import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { createServer, connect, type Socket } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { formatAdifRecord } from '../../lib/adif/writer.js';
import { createOperator, type Operator } from '../helpers/fixtures.js';
import { startTestServer } from '../helpers/server.js';
import { v1Key } from '../v1/helpers.js';
import { adifDocument, qso, qsoCount, type Fields } from './helpers.js';
import { logbookBin } from '../helpers/bin.js';

/**
 * A failed import leaves nothing in `qso`, on every door (CLI, v2 ADIF, v2 bulk JSON, v1
 * api/qso), when it fails after one and after several batches have already been moved into
 * `qso` inside its transaction. Batches are 50 rows here (`import_batch_rows`), so a few hundred
 * QSOs make several.
 *
 * A statement-level trigger counts the COPYs (or INSERTs) that reached `qso` in a sequence, which
 * no rollback undoes: each case asserts how many batches were in `qso` when the import failed.
 *
 * Which failures can tell ROLLBACK from COMMIT: after a database error (a constraint, a
 * terminated backend) PostgreSQL itself refuses to commit, so only a failure of the input
 * between two batches (client gone, stdin reset) leaves a transaction that a COMMIT would store.
 * Those cases wait until the import is idle between batches before breaking the input; each of
 * them stores its batches when the pipeline's ROLLBACK is turned into COMMIT (checked).
 */

const BATCH = 50;

const records = (prefix: string, count: number): Fields[] =>
  Array.from({ length: count }, (_, i) => qso(`${prefix}${i}`, '20240301', String(1000 + (i % 60)).padStart(4, '0'), '20m', 'CW', [['FREQ', `14.0${i % 10}`]]));
const adifRecords = (fields: Fields[]) => fields.map((f) => formatAdifRecord(f)).join('');
/** The record the constraint below refuses. */
const REFUSED: Fields = qso('ZZ0BOOM', '20240301', '1015', '20m', 'CW');

t.test('a failed import stores nothing, after one batch and after several', async (t) => {
  const server = await startTestServer(t, { config: { import_batch_rows: BATCH } });
  const pool = server.db.pool;
  await pool.query(`CREATE SEQUENCE test_qso_inserts;
    CREATE FUNCTION count_qso_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM nextval('test_qso_inserts'); RETURN NULL; END $$;
    CREATE TRIGGER count_qso_insert AFTER INSERT ON qso FOR EACH STATEMENT EXECUTE FUNCTION count_qso_insert();
    ALTER TABLE qso ADD CONSTRAINT test_refused_call CHECK (call <> 'ZZ0BOOM') NOT VALID`);

  /** INSERT statements into `qso` so far, committed or not. */
  const inserts = async (): Promise<number> => {
    const { rows } = await pool.query<{ n: string }>('SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM test_qso_inserts');
    return Number(rows[0]!.n);
  };

  /** The backend running an import, once it has moved `batches` batches and sits between two. */
  async function betweenBatches(since: number, batches: number): Promise<number> {
    for (let i = 0; i < 500; i++) {
      const { rows } = await pool.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND state = 'idle in transaction' AND query LIKE 'SELECT currval(''qso_id_seq'')%'`,
      );
      if (rows.length === 1 && (await inserts()) - since >= batches) return rows[0]!.pid;
      await sleep(20);
    }
    throw new Error(`the import did not reach batch ${batches}`);
  }

  /** Waits until no other session is inside a transaction: the failed import has ended. */
  async function importEnded(): Promise<void> {
    for (let i = 0; i < 500; i++) {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
            AND (state LIKE 'idle in transaction%' OR (state = 'active' AND (query LIKE '%import_staging%' OR query LIKE 'COPY qso %')))`,
      );
      if (rows[0]!.n === 0) return;
      await sleep(20);
    }
    throw new Error('the import did not end');
  }

  /** Asserts the failure happened with `batches` (at least, for `several`) batches in `qso`, and none stayed. */
  async function nothingStored(t: Test, op: Operator, since: number, batches: number | 'several' | 'one or more'): Promise<void> {
    await importEnded();
    const reached = (await inserts()) - since;
    if (batches === 'several') t.ok(reached >= 3, `the import failed after ${reached} batches had reached qso`);
    else if (batches === 'one or more') t.ok(reached >= 1, `the import failed after ${reached} batch(es) had reached qso`);
    else t.equal(reached, batches, `the import failed after ${batches} batch had reached qso`);
    t.equal(await qsoCount(pool, op.stationId), 0, 'nothing of the failed import is in qso');
  }

  t.test('CLI logbook import', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'logbook-rollback-'));
    const configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ import_batch_rows: BATCH }));
    const env = { ...process.env, DATABASE_URL: server.db.url, LOGBOOK_QUIET: '1', LOGBOOK_CONFIG: '' };

    /** `logbook import -` reading a TCP connection (as `nc -l | …` would): the test writes to it and can reset it. */
    async function cliOverSocket(op: Operator) {
      const listener = createServer();
      listener.listen(0, '127.0.0.1');
      await once(listener, 'listening');
      const address = listener.address() as { port: number };
      const ours = connect(address.port, '127.0.0.1');
      const [[theirs]] = await Promise.all([once(listener, 'connection') as Promise<[Socket]>, once(ours, 'connect')]);
      listener.close();
      // The child may fail and exit while the test still writes (its backend terminated): the
      // reset that write meets then is expected; the child's exit and stderr are what is checked.
      theirs.on('error', () => undefined);
      const child = spawn(process.execPath, [logbookBin, 'import', '-', '--station', String(op.stationId), '--config', configFile], {
        env,
        stdio: [ours, 'pipe', 'pipe'],
      });
      ours.destroy(); // the child holds its own descriptor of this end
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      child.stdout!.resume();
      const exited = once(child, 'exit').then(([code]) => ({ code: code as number | null, stderr }));
      return { input: theirs, exited };
    }

    for (const batches of [1, 3]) {
      t.test(`stdin reset after ${batches} batch(es)`, async (t) => {
        const op = await createOperator(pool);
        const since = await inserts();
        const cli = await cliOverSocket(op);
        cli.input.write(adifDocument([]));
        for (let n = 1; n <= batches; n++) {
          cli.input.write(adifRecords(records(`DL${n}CLI`, BATCH)));
          await betweenBatches(since, n);
        }
        cli.input.resetAndDestroy();
        const { code, stderr } = await cli.exited;
        t.equal(code, 1, 'the import fails');
        t.match(stderr, /ECONNRESET/, 'naming the cause');
        await nothingStored(t, op, since, batches);
      });
    }

    t.test('backend terminated after several batches', async (t) => {
      const op = await createOperator(pool);
      const since = await inserts();
      const cli = await cliOverSocket(op);
      cli.input.write(adifDocument(records('DL1TRM', BATCH)));
      for (let n = 2; n <= 3; n++) {
        await betweenBatches(since, n - 1);
        cli.input.write(adifRecords(records(`DL${n}TRM`, BATCH)));
      }
      const pid = await betweenBatches(since, 3);
      await pool.query('SELECT pg_terminate_backend($1)', [pid]);
      cli.input.end(adifRecords(records('DL9TRM', BATCH)));
      const { code, stderr } = await cli.exited;
      t.equal(code, 1);
      t.match(stderr, /terminat|Connection|closed/i);
      await nothingStored(t, op, since, 'several');
    });

    t.test('constraint violation in a later batch', async (t) => {
      const op = await createOperator(pool);
      const since = await inserts();
      const cli = await cliOverSocket(op);
      cli.input.write(adifDocument(records('DL1CHK', BATCH)));
      await betweenBatches(since, 1);
      cli.input.write(adifRecords(records('DL2CHK', BATCH)));
      await betweenBatches(since, 2);
      cli.input.end(adifRecords([...records('DL3CHK', 10), REFUSED, ...records('DL4CHK', 10)]));
      const { code, stderr } = await cli.exited;
      t.equal(code, 1);
      t.match(stderr, /test_refused_call/);
      await nothingStored(t, op, since, 2);
    });
  });

  // A v2 upload is read to its end before its import starts (lib/http/upload/receivedBody.ts):
  // a client gone mid-body leaves no import at all, one gone mid-import (the body in, the answer
  // not) ends it; the database fails it as on every door.
  t.test('v2 POST /api/v2/qso import_type adif', async (t) => {
    /** A chunked upload of `{"import_type":"adif",…,"adif":"…` whose `adif` text the test writes piece by piece. */
    function upload(op: Operator) {
      const req = request(`${server.url}/api/v2/qso`, {
        method: 'POST',
        headers: { authorization: `Bearer ${op.token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      const answer = new Promise<{ status: number; body: string } | 'no answer'>((resolve) => {
        req.on('response', (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (text: string) => (body += text));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', () => resolve('no answer'));
      });
      req.write(`{"station_profile_id":${op.stationId},"import_type":"adif","dryrun":false,"adif":"`);
      const text = (adif: string) => JSON.stringify(adif).slice(1, -1);
      return {
        send: (adif: string) => req.write(text(adif)),
        finish: (adif: string) => req.end(`${text(adif)}"}`),
        disconnect: () => req.destroy(),
        answer,
      };
    }

    /** The backend of an import that has moved at least `batches` batches (of a document long enough to be still running). */
    async function runningImport(since: number, batches: number): Promise<number> {
      for (let i = 0; i < 1000; i++) {
        const { rows } = await pool.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
              AND (query LIKE '%import_staging%' OR query LIKE 'COPY qso %')`,
        );
        if (rows.length === 1 && (await inserts()) - since >= batches) return rows[0]!.pid;
        await sleep(10);
      }
      throw new Error(`the import did not reach batch ${batches}`);
    }
    /** Batches of a document that takes the import a while: it is caught running. */
    const LONG = 400;

    t.test('client disconnects before its body has ended: no import begins', async (t) => {
      const op = await createOperator(pool);
      const since = await inserts();
      const up = upload(op);
      up.send(adifDocument([]));
      for (let n = 1; n <= 3; n++) up.send(adifRecords(records(`DL${n}UP`, BATCH)));
      await sleep(500);
      up.disconnect();
      t.equal(await up.answer, 'no answer');
      await nothingStored(t, op, since, 0);
    });

    t.test('client disconnects while its import runs', async (t) => {
      const op = await createOperator(pool);
      const since = await inserts();
      const up = upload(op);
      up.send(adifDocument([]));
      up.finish(adifRecords(records('DL1GONE', LONG * BATCH)));
      await runningImport(since, 1);
      up.disconnect();
      t.equal(await up.answer, 'no answer');
      await nothingStored(t, op, since, 'one or more');
    });

    t.test('backend terminated after several batches: 500', async (t) => {
      const op = await createOperator(pool);
      const since = await inserts();
      const up = upload(op);
      up.send(adifDocument([]));
      up.finish(adifRecords(records('DL1TRV', LONG * BATCH)));
      await pool.query('SELECT pg_terminate_backend($1)', [await runningImport(since, 3)]);
      t.match(await up.answer, { status: 500 });
      await nothingStored(t, op, since, 'several');
    });

    t.test('constraint violation after several batches: 500', async (t) => {
      const op = await createOperator(pool);
      const since = await inserts();
      const up = upload(op);
      up.send(adifDocument([]));
      // Read from memory or disk at once, the document's batches end where the import's reading
      // does (as v1's below): enough records before the refused one make several.
      up.send(adifRecords(records('DL1CKV', 2500)));
      up.finish(adifRecords([REFUSED, ...records('DL9CKV', 600)]));
      t.match(await up.answer, { status: 500 });
      await nothingStored(t, op, since, 'several');
    });
  });

  // Bulk JSON and v1 read the whole body before the import starts: no client can break off
  // mid-import, so what fails there is the database.
  t.test('v2 bulk JSON (qsos)', async (t) => {
    const jsonRecords = (prefix: string, count: number) =>
      records(prefix, count).map((fields) => Object.fromEntries(fields.map(([name, value]) => [name.toLowerCase(), name === 'FREQ' ? `${value}M` : value])));
    for (const [before, batches] of [[300, 1], [1000, 'several']] as const) {
      t.test(`constraint violation after ${batches} batch(es)`, async (t) => {
        const op = await createOperator(pool);
        const since = await inserts();
        const qsos = [...jsonRecords('DL1BLK', before), jsonRecords('ZZ0BOOM', 1)[0]!, ...jsonRecords('DL2BLK', 20)];
        qsos[before]!.call = 'ZZ0BOOM';
        const res = await server.request('/api/v2/qso', { method: 'POST', token: op.token, json: { station_profile_id: op.stationId, qsos } });
        t.equal(res.status, 500);
        await nothingStored(t, op, since, batches);
      });
    }
  });

  t.test('v1 api/qso', async (t) => {
    // How v1's string reaches the import (in memory or spooled, sliced) decides where its batches
    // end, so the first case only asks that some batch had reached qso. Records after the refused
    // one keep the document beyond the direct path's 64 KiB.
    for (const [before, batches] of [[1200, 'one or more'], [2500, 'several']] as const) {
      t.test(`constraint violation after ${batches} batch(es)`, async (t) => {
        const op = await createOperator(pool);
        const key = await v1Key(pool, op.userId);
        const since = await inserts();
        const string = adifDocument([...records('DL1VONE', before), REFUSED, ...records('DL2VONE', 600)]);
        const res = await server.request('/api/qso', { method: 'POST', json: { key, station_profile_id: op.stationId, type: 'adif', string } });
        t.equal(res.status, 500);
        await nothingStored(t, op, since, batches);
      });
    }
  });
});
