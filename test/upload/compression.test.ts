import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { adifDocument } from './helpers.js';

/** A GET without fetch's automatic decompression: the raw headers and bytes. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

t.test('Accept-Encoding: gzip on lists and exports', async (t) => {
  const server = await startTestServer(t);
  const op = await createOperator(server.db.pool, { callsign: 'DL1GZP' });
  const imported = await server.request(`/api/v2/qso?station_profile_id=${op.stationId}`, {
    method: 'POST', token: op.token, body: adifDocument(40), headers: { 'content-type': 'text/plain' },
  });
  t.equal(imported.status, 201, imported.text);
  const auth = { authorization: `Bearer ${op.token}` };
  // The two requests of a pair may fall on either side of a second: the ADIF header's creation time is not compared.
  const sameSecond = (body: Buffer) => JSON.parse(body.toString('utf8').replace(/<CREATED_TIMESTAMP:15>\d{8} \d{6}/g, '<CREATED_TIMESTAMP:15>'));

  t.test('the JSON list, the ADIF pages and the change feed (streams) come gzip-compressed when asked', async (t) => {
    for (const path of ['/api/v2/qso?per_page=40', '/api/v2/qso?format=adif', '/api/v2/qso/changes', '/api/v2/qso/changes?omit_empty=true']) {
      const zipped = await rawGet(server.url + path, { ...auth, 'accept-encoding': 'gzip, deflate' });
      t.equal(zipped.status, 200, path);
      t.equal(zipped.headers['content-encoding'], 'gzip', path);
      t.match(zipped.headers.vary, /Accept-Encoding/);
      const plain = await rawGet(server.url + path, auth);
      t.equal(plain.headers['content-encoding'], undefined, `${path}: not without Accept-Encoding`);
      t.same(sameSecond(gunzipSync(zipped.body)).data, sameSecond(plain.body).data, path);
    }
  });

  t.test('small answers and clients that refuse gzip get identity', async (t) => {
    const small = await rawGet(`${server.url}/api/v2/status`, { 'accept-encoding': 'gzip' });
    t.equal(small.headers['content-encoding'], undefined);
    const refused = await rawGet(`${server.url}/api/v2/qso?per_page=40`, { ...auth, 'accept-encoding': 'gzip;q=0, identity' });
    t.equal(refused.headers['content-encoding'], undefined);
    t.equal(JSON.parse(refused.body.toString('utf8')).data.length, 40);
  });
});
