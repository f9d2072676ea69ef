import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { logbookHome } from '../../lib/db/embedded.js';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';

/**
 * ADIF imports whose document arrives over time: the body is received (a spool file of the
 * process) before the import takes its connection, then fed to the import as it is read back
 * when import_type and station_profile_id come first, spooled to a second file when they come
 * after it; refused with 413 beyond the body limit.
 */

/** `count` ADIF records with calls <prefix><n>, one minute apart from 2023-01-01 (up to 40,320). */
function adifDocument(prefix: string, count: number): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const lines = ['generated <EOH>'];
  for (let i = 0; i < count; i++) {
    const call = `${prefix}${i}`;
    const date = `202301${two(1 + Math.floor(i / 1440))}`;
    const time = `${two(Math.floor((i % 1440) / 60))}${two(i % 60)}`;
    lines.push(`<CALL:${call.length}>${call} <QSO_DATE:8>${date} <TIME_ON:4>${time} <BAND:3>20m <MODE:3>SSB <FREQ:6>14.200 <EOR>`);
  }
  return lines.join('\r\n') + '\r\n';
}

interface OpenRequest {
  write(text: string): Promise<void>;
  end(text?: string): void;
  abort(): void;
  response: Promise<{ status: number; body: any }>;
}

/** A POST whose body the test sends piece by piece (chunked, no Content-Length unless given). */
function openPost(server: TestServer, token: string, headers: Record<string, string> = {}): OpenRequest {
  const req = httpRequest(`${server.url}/api/v2/qso`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
  });
  const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
  });
  return {
    write: (text) => new Promise((resolve, reject) => req.write(text, (error) => (error ? reject(error) : resolve()))),
    end: (text) => req.end(text),
    abort: () => req.destroy(),
    response,
  };
}

async function until(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

/** This process's spool folder (lib/http/spool.ts). */
const SPOOL = join(logbookHome(), 'spool', String(process.pid));

/** Spool directories whose file holds `marker`. */
function spoolsWith(marker: string): string[] {
  if (!existsSync(SPOOL)) return [];
  return readdirSync(SPOOL)
    .map((name) => join(SPOOL, name))
    .filter((dir) => {
      try {
        return readFileSync(join(dir, 'text'), 'utf8').includes(marker);
      } catch {
        return false;
      }
    });
}

t.test('streamed ADIF imports', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1STR' });
  const other = await createOperator(db, { callsign: 'DL2OTH' });
  const count = async (prefix: string) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1 AND call LIKE $2', [op.stationId, `${prefix}%`])).rows[0]!.n;
  const copyRunning = async () =>
    (await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE 'COPY qso %'",
    )).rows[0]!.n > 0;

  t.test('parameters first: 20,000 records, received while the body arrives, imported once it is in', async (t) => {
    const text = JSON.stringify(adifDocument('KA', 20_000));
    const half = Math.floor(text.length / 2);
    const post = openPost(server, op.token);
    await post.write(`{"import_type":"adif","station_profile_id":${op.stationId},"adif":`);
    await post.write(text.slice(0, half));
    t.ok(await until(async () => spoolsWith('KA1').length === 1), 'the body received so far waits in one spool file');
    t.notOk(await copyRunning(), 'no import runs before the body has ended');
    const spools = spoolsWith('KA1');
    await post.write(text.slice(half));
    post.end('}');
    const res = await post.response;
    t.equal(res.status, 201);
    t.same(res.body.data, { parsed: 20_000, imported: 20_000, confirmed: 0, unchanged: 0, unmatched: 0, ambiguous: 0, skipped: 0, failed: 0, messages: [] });
    t.equal(await count('KA'), 20_000);
    t.notOk(existsSync(spools[0]!), 'the spool directory is gone');
  });

  t.test('adif before station_profile_id: spooled to a temporary file, imported at the end, file removed', async (t) => {
    const text = JSON.stringify(adifDocument('KB', 20_000));
    const half = Math.floor(text.length / 2);
    const post = openPost(server, op.token);
    await post.write('{"adif":');
    await post.write(text.slice(0, half));
    t.ok(await until(async () => spoolsWith('KB1').length === 1), 'the first half is in a spool file');
    const spools = spoolsWith('KB1');
    t.notOk(await copyRunning(), 'no import runs before its station is known');
    await post.write(text.slice(half));
    post.end(`,"station_profile_id":${op.stationId},"import_type":"adif"}`);
    const res = await post.response;
    t.equal(res.status, 201);
    t.same(res.body.data, { parsed: 20_000, imported: 20_000, confirmed: 0, unchanged: 0, unmatched: 0, ambiguous: 0, skipped: 0, failed: 0, messages: [] });
    t.equal(await count('KB'), 20_000);
    t.notOk(existsSync(spools[0]!), 'the spool directory is gone');
  });

  t.test('a foreign station_profile_id before adif is refused, nothing stored', async (t) => {
    const post = openPost(server, op.token);
    await post.write(`{"import_type":"adif","station_profile_id":${other.stationId},"adif":`);
    post.end(`${JSON.stringify(adifDocument('KC', 50))}}`);
    const res = await post.response;
    t.equal(res.status, 403);
    t.equal(res.body.error.code, 'forbidden');
    t.equal(await count('KC'), 0);
  });

  t.test('dryrun after a streamed adif: a dry run, nothing stored; dryrun false after it imports', async (t) => {
    const text = JSON.stringify(adifDocument('KD', 30));
    // A JSON body sent as a string: fetch would call it text/plain, which is a document upload.
    const headers = { 'content-type': 'application/json' };
    const dry = await server.request('/api/v2/qso', {
      method: 'POST', token: op.token, headers,
      body: `{"import_type":"adif","station_profile_id":${op.stationId},"adif":${text},"dryrun":true}`,
    });
    t.equal(dry.status, 200);
    t.match(dry.body.data, { dryrun: true, parsed: 30, imported: 30 });
    t.equal(await count('KD'), 0);
    const real = await server.request('/api/v2/qso', {
      method: 'POST', token: op.token, headers,
      body: `{"import_type":"adif","station_profile_id":${op.stationId},"adif":${text},"dryrun":false}`,
    });
    t.equal(real.status, 201);
    t.equal(await count('KD'), 30);
  });

  t.test('a body that breaks after a streamed adif rolls the import back', async (t) => {
    const text = JSON.stringify(adifDocument('KE', 30));
    for (const tail of [',"dryrun":', ',"station_profile_id":999999}', ',"import_type":"json"}']) {
      const res = await server.request('/api/v2/qso', {
        method: 'POST', token: op.token, body: `{"import_type":"adif","station_profile_id":${op.stationId},"adif":${text}${tail}`,
      });
      t.equal(res.status >= 400 && res.status < 500, true, `${tail}: ${res.status}`);
      t.equal(await count('KE'), 0, tail);
    }
  });
});

t.test('body limits while streaming', async (t) => {
  const server = await startTestServer(t, { config: { max_body_bytes: 8192, max_json_body_bytes: 2048 } });
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1LIM' });
  const stored = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso')).rows[0]!.n;
  const big = JSON.stringify(adifDocument('KF', 200));
  const small = JSON.stringify(adifDocument('KG', 40));
  t.ok(big.length > 8192 && small.length > 2048 && small.length < 8000);

  t.test('a declared Content-Length above max_body_bytes is 413 at once', async (t) => {
    const res = await server.request('/api/v2/qso', {
      method: 'POST', token: op.token, body: `{"import_type":"adif","station_profile_id":${op.stationId},"adif":${big}}`,
    });
    t.equal(res.status, 413);
    t.equal(res.body.error.code, 'payload_too_large');
    t.same(res.body.error.details, { limit: 8192 });
  });

  t.test('a chunked body growing past max_body_bytes is 413, nothing stored', async (t) => {
    const post = openPost(server, op.token);
    await post.write(`{"import_type":"adif","station_profile_id":${op.stationId},"adif":`);
    for (let at = 0; at < big.length; at += 1000) {
      try {
        await post.write(big.slice(at, at + 1000));
      } catch {
        break; // the server answered and closed
      }
    }
    post.end('}');
    const res = await post.response;
    t.equal(res.status, 413);
    t.equal(res.body.error.code, 'payload_too_large');
    t.equal(await stored(), 0);
  });

  t.test('the same while spooling: 413 and the spool file removed', async (t) => {
    const post = openPost(server, op.token);
    await post.write('{"adif":');
    for (let at = 0; at < big.length; at += 1000) {
      try {
        await post.write(big.slice(at, at + 1000));
      } catch {
        break;
      }
    }
    post.end('}');
    const res = await post.response;
    t.equal(res.status, 413);
    t.same(spoolsWith('KF1'), []);
  });

  t.test('the adif text does not count against max_json_body_bytes; other members do', async (t) => {
    const adif = await server.request('/api/v2/qso', {
      method: 'POST', token: op.token, headers: { 'content-type': 'application/json' },
      body: `{"import_type":"adif","station_profile_id":${op.stationId},"adif":${small}}`,
    });
    t.equal(adif.status, 201);
    t.equal(adif.body.data.imported, 40);
    const qsos = Array.from({ length: 40 }, (_, i) => ({ call: `KH${i}`, band: '20m', mode: 'SSB', qso_date: '2024-01-01', time_on: '1200' }));
    const bulk = await server.request('/api/v2/qso', { method: 'POST', token: op.token, json: { station_profile_id: op.stationId, qsos } });
    t.equal(bulk.status, 413);
    t.same(bulk.body.error.details, { limit: 2048 });
    t.equal(await stored(), 40);
  });
});
