import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { buildConfig } from '../../lib/config.js';
import type { Logger, LogFields } from '../../lib/log.js';
import { startServer } from '../../lib/server.js';
import { formatAdifRecord } from '../../lib/adif/writer.js';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { qso } from '../import/helpers.js';

/** A logger that keeps its error lines, to see what a 500 was logged as. */
function recordingLogger(errors: LogFields[]): Logger {
  const logger: Logger = { info: () => undefined, warn: () => undefined, error: (_message, fields = {}) => void errors.push(fields), child: () => logger };
  return logger;
}

t.test('a v2 ADIF import whose backend is terminated mid-way: 500, logged with the real cause', async (t) => {
  const db = await testDatabase(t);
  const errors: LogFields[] = [];
  const server = await startServer({ config: buildConfig({ import_batch_rows: 50 }, {}), db, logger: recordingLogger(errors), port: 0, host: '127.0.0.1' });
  t.teardown(() => server.close());
  const op = await createOperator(db.pool);
  const records = (from: number) => Array.from({ length: 100 }, (_, i) => formatAdifRecord(qso(`K${from + i}TRM`, '20240301', '1015', '20m', 'CW'))).join('');

  const answer = new Promise<number>((resolve, reject) => {
    const req = request(`${server.url}/api/v2/qso`, { method: 'POST', headers: { authorization: `Bearer ${op.token}`, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    (async () => {
      // A document long enough (60 batches) to be caught while its import runs: the body is
      // received whole before the import starts, and the import then reads it back.
      const document = `<EOH>${Array.from({ length: 30 }, (_, n) => records(n * 100)).join('')}`;
      req.end(`{"station_profile_id":${op.stationId},"import_type":"adif","dryrun":false,"adif":${JSON.stringify(document)}}`);
      // The import's backend, once it is writing its rows (straight into qso, or through staging).
      let pid: number | undefined;
      for (let i = 0; i < 500 && pid === undefined; i++) {
        const { rows } = await db.pool.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
              AND state <> 'idle' AND (query LIKE '%import_staging%' OR query LIKE 'COPY qso %')`);
        pid = rows[0]?.pid;
        if (pid === undefined) await sleep(20);
      }
      if (pid === undefined) throw new Error('the import never opened its transaction');
      await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    })().catch(reject);
  });
  t.equal(await answer, 500);
  t.equal(errors.length, 1, 'one error logged');
  t.match(errors[0], { error: /terminat/ }, 'the log names the terminated connection');
  t.notMatch(String(errors[0]?.error), /destination is closed/);
  const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [op.stationId]);
  t.equal(rows[0]!.n, 0, 'nothing stored');
});
