import t from 'tap';
import { randomBytes } from 'node:crypto';
import { buildConfig } from '../../lib/config.js';
import { startServer } from '../../lib/server.js';
import type { Logger, LogFields } from '../../lib/log.js';
import { testDatabase } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';
import { v1Key } from '../v1/helpers.js';

/** A logger that keeps every line, so the test can read what would have been written. */
function capturingLogger(lines: LogFields[], base: LogFields = {}): Logger {
  const keep = (msg: string, fields?: LogFields) => void lines.push({ msg, ...base, ...fields });
  return { info: keep, warn: keep, error: keep, child: (fields) => capturingLogger(lines, { ...base, ...fields }) };
}

t.test('keys and tokens in paths never reach the log or the metrics; unmatched paths share one series', async (t) => {
  const db = await testDatabase(t);
  const lines: LogFields[] = [];
  const server = await startServer({ config: buildConfig({}, {}), db, logger: capturingLogger(lines), port: 0, host: '127.0.0.1' });
  t.teardown(() => server.close());
  const op = await createOperator(db.pool);
  const key = await v1Key(db.pool, op.userId, 'rw');
  const get = (path: string) => fetch(server.url + path).then((r) => r.text());

  const secretPaths = [
    `/api/auth/${key}`,
    `/api/check_auth/${key}`,
    `/api/statistics/${key}`,
    `/index.php/api/station_info/${key}/`,
    `/api/check_auth/not-a-key-shape-${key.slice(2, 10)}`,
    `/somewhere/${op.token}`,
  ];
  for (const path of secretPaths) await get(path);
  for (let i = 0; i < 3; i++) await get(`/random-${randomBytes(6).toString('hex')}`);

  const logged = JSON.stringify(lines.filter((line) => line.msg === 'request'));
  t.notMatch(logged, key, 'no v1 key in the request log');
  t.notMatch(logged, key.slice(2, 10), 'no part of a key-in-path either');
  t.notMatch(logged, op.token, 'no v2 token in the request log');
  t.match(logged, '/api/check_auth/[redacted]');
  t.match(logged, '/index.php/api/station_info/[redacted]/');
  t.match(logged, '/somewhere/[redacted]');

  const metrics = await get('/metrics');
  t.notMatch(metrics, key);
  t.notMatch(metrics, op.token);
  t.notMatch(metrics, 'random-', 'paths are not labels');
  const unmatched = metrics.split('\n').filter((line) => line.startsWith('logbook_http_requests_total{') && line.includes('api="other"'));
  t.same(unmatched.map((line) => line.replace(/ \d+$/, '')), [
    'logbook_http_requests_total{api="other",method="GET",resource="unmatched",status="404"}',
  ], 'one series for every unmatched path');
  t.match(metrics, /logbook_http_requests_total\{api="v1",method="GET",resource="check_auth",status="200"\} 1/);
});
