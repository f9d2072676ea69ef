import { connect } from 'node:net';
import t from 'tap';
import { createOperator } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { memoryLogger, until, type LogLine } from '../helpers/worker.js';

// A v2 client that goes away in the middle of its upload: the server logged "unhandled error …
// aborted" (error level, with a stack) and a stray "Error: Parse Error" reached stderr. It is
// an ordinary event: one info line, no error, nothing on stderr, nothing stored.

function adifRecords(prefix: string, count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) {
    const call = `${prefix}${i}`;
    text += `<CALL:${call.length}>${call} <QSO_DATE:8>20230101 <TIME_ON:4>${String(i % 2400).padStart(4, '0')} <BAND:3>20m <MODE:3>SSB <EOR>\r\n`;
  }
  return text;
}

/** Sends the head and `part` of a body announced as `declared` bytes, then drops the connection. */
async function abandon(server: TestServer, path: string, headers: Record<string, string>, part: string, declared: number): Promise<void> {
  const socket = connect(server.port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const head = Object.entries({ host: 'x', 'content-length': String(declared), ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
  await new Promise<void>((resolve) => socket.write(part, () => resolve()));
  await new Promise((resolve) => setTimeout(resolve, 300));
  socket.destroy();
}

t.test('an upload abandoned mid-way is a quiet info event and stores nothing', async (t) => {
  const lines: LogLine[] = [];
  const stderr: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    stderr.push(String(chunk));
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  t.teardown(() => {
    process.stderr.write = write;
  });
  const server = await startTestServer(t, { logger: memoryLogger(lines) });
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1ABT' });
  const stored = async (prefix: string) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE call LIKE $1', [`${prefix}%`])).rows[0]!.n;
  const auth = { authorization: `Bearer ${op.token}` };
  const records = adifRecords('KX', 3000);

  const cases: Array<[string, string, Record<string, string>, string]> = [
    ['JSON, import streaming', '/api/v2/qso', { ...auth, 'content-type': 'application/json' },
      `{"import_type":"adif","station_profile_id":${op.stationId},"adif":${JSON.stringify(records).slice(0, -1)}`],
    ['JSON, adif spooled', '/api/v2/qso', { ...auth, 'content-type': 'application/json' }, `{"adif":${JSON.stringify(records).slice(0, -1)}`],
    ['an ADIF document', `/api/v2/qso?station_profile_id=${op.stationId}`, { ...auth, 'content-type': 'text/plain' }, `x <EOH>\r\n${records}`],
    ['a multipart upload', `/api/v2/qso?station_profile_id=${op.stationId}`, { ...auth, 'content-type': 'multipart/form-data; boundary=XyZ' },
      `--XyZ\r\ncontent-disposition: form-data; name="file"; filename="log.adi"\r\ncontent-type: text/plain\r\n\r\nx <EOH>\r\n${records}`],
    ['an import job', `/api/v2/qso?station_profile_id=${op.stationId}`, { ...auth, 'content-type': 'text/plain', prefer: 'respond-async' }, `x <EOH>\r\n${records}`],
  ];
  for (const [name, path, headers, part] of cases) {
    const before = lines.length;
    await abandon(server, path, headers, part, part.length * 4);
    await until(() => lines.slice(before).some((line) => /abandon|abort/i.test(line.message)), `${name}: a log line`, 5000).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const logged = lines.slice(before);
    t.same(logged.filter((line) => line.level !== 'info').map((line) => `${line.level}: ${line.message} ${String(line.fields.error ?? '')}`), [], `${name}: no warning or error logged`);
    t.ok(logged.some((line) => line.level === 'info' && /abandon|abort/i.test(line.message)), `${name}: one info line says the client went away`);
    t.equal(await stored('KX'), 0, `${name}: nothing stored`);
  }
  // Before, the job's row stayed queued (its removal ran in the abandoned request's query scope,
  // which refuses queries) and counted against max_active_per_owner until a restart.
  const waiting = async () => (await db.query<{ state: string }>("SELECT state FROM import_jobs WHERE user_id = $1 AND state IN ('queued', 'running')", [op.userId])).rows;
  await until(async () => (await waiting()).length === 0, 'the job to be forgotten', 5000).catch(() => undefined);
  t.same(await waiting(), [], 'no job left waiting for a body that will not come');
  t.same(stderr.filter((text) => /Error/.test(text)), [], 'nothing on stderr');
});
