import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { adifDocument, adxDocument, formBody } from './helpers.js';

t.test('POST /api/v2/qso with a file: raw, form, gzip; limits and errors', async (t) => {
  const server = await startTestServer(t, { config: { max_body_bytes: 64 * 1024 } });
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1UPL' });
  const other = await createOperator(db, { callsign: 'DL2UPL' });
  const count = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qso WHERE station_id = $1', [op.stationId])).rows[0]!.n;
  const upload = (query: string, body: string | Buffer, headers: Record<string, string>, token = op.token) =>
    server.request(`/api/v2/qso${query}`, { method: 'POST', token, body, headers });

  t.test('an ADIF document as text/plain: 201 with the summary; again: all duplicates', async (t) => {
    const res = await upload(`?station_profile_id=${op.stationId}`, adifDocument(3), { 'content-type': 'text/plain' });
    t.equal(res.status, 201, res.text);
    t.same(res.body.data, { parsed: 3, imported: 3, confirmed: 0, unchanged: 0, unmatched: 0, ambiguous: 0, skipped: 0, failed: 0, messages: [] });
    t.equal(await count(), 3);
    const again = await upload(`?station_profile_id=${op.stationId}`, adifDocument(3), { 'content-type': 'application/octet-stream' });
    t.equal(again.status, 201);
    t.match(again.body.data, { parsed: 3, imported: 0, skipped: 3 });
  });

  t.test('an ADX document as application/xml; a dry run reports what the real run would', async (t) => {
    const dry = await upload(`?station_profile_id=${op.stationId}&dryrun=true`, adxDocument(['W1ADX', 'W2ADX']), { 'content-type': 'application/xml' });
    t.equal(dry.status, 200, dry.text);
    t.match(dry.body.data, { dryrun: true, parsed: 2, imported: 2, failed: 0 });
    t.equal(await count(), 3, 'a dry run stores nothing');
    const res = await upload(`?station_profile_id=${op.stationId}`, adxDocument(['W1ADX', 'W2ADX']), { 'content-type': 'application/xml' });
    t.equal(res.status, 201, res.text);
    t.match(res.body.data, { parsed: 2, imported: 2 });
  });

  t.test('curl --data-binary (form-encoded type): sniffed as a document; JSON still sniffed as JSON', async (t) => {
    const res = await upload(`?station_profile_id=${op.stationId}`, adifDocument(1, 100), { 'content-type': 'application/x-www-form-urlencoded' });
    t.equal(res.status, 201, res.text);
    t.match(res.body.data, { imported: 1 });
    const json = await upload('', JSON.stringify({ station_profile_id: op.stationId, call: 'K9SNF', band: '20m', mode: 'CW', qso_date: '2024-05-01', time_on: '1200' }), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    t.equal(json.status, 201, json.text);
    t.equal(json.body.data.call, 'K9SNF');
  });

  t.test('a log sent as application/json: the error says how to send a file', async (t) => {
    const res = await upload(`?station_profile_id=${op.stationId}`, adifDocument(1), { 'content-type': 'application/json' });
    t.equal(res.status, 400);
    t.equal(res.body.error.code, 'invalid_json');
    t.match(res.body.error.message, /not valid JSON.*text\/plain.*station_profile_id in the query.*multipart\/form-data/);
  });

  t.test('settings: station required, owned; dryrun checked; an unknown media type is 415', async (t) => {
    const missing = await upload('', adifDocument(1), { 'content-type': 'text/plain' });
    t.equal(missing.status, 400);
    t.same(missing.body.error.details, { missing: ['station_profile_id'] });
    const foreign = await upload(`?station_profile_id=${other.stationId}`, adifDocument(1), { 'content-type': 'text/plain' });
    t.equal(foreign.status, 403);
    const badDry = await upload(`?station_profile_id=${op.stationId}&dryrun=maybe`, adifDocument(1), { 'content-type': 'text/plain' });
    t.equal(badDry.status, 400);
    const image = await upload(`?station_profile_id=${op.stationId}`, 'GIF89a', { 'content-type': 'image/gif' });
    t.equal(image.status, 415);
    t.ok(image.body.error.details.accepted.includes('multipart/form-data'));
    const empty = await upload(`?station_profile_id=${op.stationId}`, 'no records here', { 'content-type': 'text/plain' });
    t.equal(empty.status, 400);
    t.equal(empty.body.error.message, 'nothing to import: the input is neither ADIF nor ADX (it begins with "no records here")');
  });

  t.test('a file with nothing readable as ADIF or ADX is 400, quoted as a short escaped excerpt', async (t) => {
    const before = await count();
    const binary = readFileSync('/bin/ls').subarray(0, 30_000);
    const raw = await upload(`?station_profile_id=${op.stationId}`, binary, { 'content-type': 'application/octet-stream' });
    const form = formBody([['station_profile_id', String(op.stationId)]], { filename: 'ls', content: binary });
    const viaForm = await upload('', form.body, { 'content-type': form.contentType });
    for (const res of [raw, viaForm]) {
      t.equal(res.status, 400, res.text);
      t.match(res.body.error.message, /^nothing to import: the input is neither ADIF nor ADX \(it begins with "\\x7fELF\\x02.*"\)$/);
      t.notMatch(res.text, /[\x00-\x1f\x7f-\x9f\ufffd]/);
    }
    t.equal(await count(), before);
  });

  t.test('multipart/form-data as a browser form sends it', async (t) => {
    const before = await count();
    const form = formBody([['station_profile_id', String(op.stationId)]], { filename: 'log.adi', content: adifDocument(2, 200) });
    const res = await upload('', form.body, { 'content-type': form.contentType });
    t.equal(res.status, 201, res.text);
    t.match(res.body.data, { parsed: 2, imported: 2 });
    t.equal(await count(), before + 2);

    const viaQuery = formBody([['dryrun', 'true']], { filename: 'log.adx', content: adxDocument(['W5FRM']) });
    const dry = await upload(`?station_profile_id=${op.stationId}`, viaQuery.body, { 'content-type': viaQuery.contentType });
    t.equal(dry.status, 200, dry.text);
    t.match(dry.body.data, { dryrun: true, parsed: 1, imported: 1 });

    // A setting after the file would come too late to apply: refused, nothing stored.
    const late = formBody([['station_profile_id', String(op.stationId)]], { filename: 'log.adi', content: adifDocument(2, 300) });
    const boundary = '----logbookTestBoundary7MA4YWxk';
    const trailing = Buffer.concat([
      late.body.subarray(0, late.body.lastIndexOf(`--${boundary}--`)),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="dryrun"\r\n\r\ntrue\r\n--${boundary}--\r\n`),
    ]);
    const refused = await upload('', trailing, { 'content-type': late.contentType });
    t.equal(refused.status, 400, refused.text);
    t.match(refused.body.error.message, /dryrun.*before the file/);
    t.equal(await count(), before + 2);

    const noFile = formBody([['station_profile_id', String(op.stationId)]], null);
    const none = await upload('', noFile.body, { 'content-type': noFile.contentType });
    t.equal(none.status, 400);
    t.match(none.body.error.message, /no file part/);
    const twoFiles = Buffer.concat([
      formBody([['station_profile_id', String(op.stationId)]], { filename: 'a.adi', content: adifDocument(1, 400) }).body.subarray(0, -(`--${boundary}--\r\n`.length)),
      formBody([], { filename: 'b.adi', content: adifDocument(1, 401) }).body,
    ]);
    const two = await upload('', twoFiles, { 'content-type': form.contentType });
    t.equal(two.status, 400);
    t.match(two.body.error.message, /one file/);
    const broken = await upload('', form.body.subarray(0, form.body.length - 12), { 'content-type': form.contentType });
    t.equal(broken.status, 400);
    t.match(broken.body.error.message, /closing delimiter/);
    const noBoundary = await upload('', form.body, { 'content-type': 'multipart/form-data' });
    t.equal(noBoundary.status, 400);
    t.equal(await count(), before + 2, 'no failed form stored anything');
  });

  t.test('Content-Encoding gzip on every kind of upload', async (t) => {
    const before = await count();
    const raw = await upload(`?station_profile_id=${op.stationId}`, gzipSync(adifDocument(2, 500)), { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
    t.equal(raw.status, 201, raw.text);
    t.match(raw.body.data, { imported: 2 });
    const form = formBody([['station_profile_id', String(op.stationId)]], { filename: 'log.adi', content: adifDocument(1, 600) });
    const viaForm = await upload('', gzipSync(form.body), { 'content-type': form.contentType, 'content-encoding': 'gzip' });
    t.equal(viaForm.status, 201, viaForm.text);
    const json = await upload('', gzipSync(JSON.stringify({ station_profile_id: op.stationId, import_type: 'adif', adif: adifDocument(1, 700) })), {
      'content-type': 'application/json', 'content-encoding': 'gzip',
    });
    t.equal(json.status, 201, json.text);
    t.equal(await count(), before + 4);
    const notGzip = await upload(`?station_profile_id=${op.stationId}`, 'plainly not gzip', { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
    t.equal(notGzip.status, 400);
    t.match(notGzip.body.error.message, /not valid gzip/);
    const brotli = await upload(`?station_profile_id=${op.stationId}`, 'x', { 'content-type': 'text/plain', 'content-encoding': 'br' });
    t.equal(brotli.status, 415);
  });

  t.test('the OpenAPI document lists the upload bodies', async (t) => {
    const doc = (await server.request('/openapi.json')).body;
    const content = doc.paths['/api/v2/qso'].post.requestBody.content;
    t.same(Object.keys(content).sort(), ['application/json', 'application/octet-stream', 'application/xml', 'multipart/form-data', 'text/plain']);
    t.ok(doc.paths['/api/v2/qso'].post.parameters.some((p: { name: string }) => p.name === 'station_profile_id'));
  });

  t.test('max_body_bytes: on the sent bytes, and on the decompressed bytes of a gzip bomb', async (t) => {
    const before = await count();
    const big = adifDocument(1000, 1000);
    t.ok(big.length > 64 * 1024);
    const plain = await upload(`?station_profile_id=${op.stationId}`, big, { 'content-type': 'text/plain' });
    t.equal(plain.status, 413);
    const bomb = gzipSync(Buffer.concat([Buffer.from(adifDocument(1, 2000)), Buffer.alloc(8 * 1024 * 1024, 0x20)]));
    t.ok(bomb.length < 64 * 1024, `bomb is ${bomb.length} bytes compressed`);
    const res = await upload(`?station_profile_id=${op.stationId}`, bomb, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
    t.equal(res.status, 413);
    t.equal(res.body.error.code, 'payload_too_large');
    // Chunked (no Content-Length): the limit applies while reading.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${server.url}/api/v2/qso?station_profile_id=${op.stationId}`, {
        method: 'POST', headers: { authorization: `Bearer ${op.token}`, 'content-type': 'text/plain' },
      }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      req.on('error', reject);
      for (let i = 0; i < 4; i++) req.write(big.slice(0, 30_000));
      req.end();
    });
    t.equal(chunked, 413);
    t.equal(await count(), before);
  });
});
