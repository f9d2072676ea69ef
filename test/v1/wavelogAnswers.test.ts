import t from 'tap';
import { spawnSync } from 'node:child_process';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { appVersion } from '../../lib/version.js';
import { post, v1Key } from './helpers.js';
import { logbookBin } from '../helpers/bin.js';

// Answers outside the v1 calls that clients read to recognise the original and explain errors.
t.test('what clients read to recognise the original', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1WLA' });

  t.test('GET /manifest.json names Wavelog, as the original', async (t) => {
    const res = await server.request('/manifest.json');
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^application\/json/);
    t.equal(res.body.name, 'Wavelog');
    t.equal(res.body.short_name, 'Wavelog');
    t.equal((await server.request('/index.php/manifest.json')).status, 404, 'only at the root, as a web server serves it');
  });

  t.test('a v1 key on v2 is refused with the original\'s "legacy" wording', async (t) => {
    const key = await v1Key(db, op.userId, 'rw');
    const res = await server.request('/api/v2/qso', { token: key });
    t.equal(res.status, 401);
    t.equal(res.body.error.code, 'invalid_token');
    t.equal(res.body.error.message, 'API v2 requires a wl2_ token; legacy v1 API keys are not accepted');
  });

  t.test('api/version answers the Wavelog API version, v2 status and the CLI our own', async (t) => {
    const key = await v1Key(db, op.userId, 'r');
    const v1 = await post(server, '/api/version', { key });
    t.strictSame(v1.body, { status: 'ok', version: '3.1.0' });
    t.not(appVersion, '3.1.0', 'the two versions are told apart');
    t.equal((await server.request('/api/v2/status')).body.data.version, appVersion);
    const cli = spawnSync(process.execPath, [logbookBin, '--version'], { encoding: 'utf8' });
    t.equal(cli.status, 0, cli.stderr);
    t.equal(cli.stdout, `${appVersion}\n`);
  });
});
