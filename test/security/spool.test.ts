import t from 'tap';
import { request } from 'node:http';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { logbookHome } from '../../lib/db/embedded.js';
import { startTestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';

/** Above Linux's largest pid_max (2^22), so no process can have it. */
const DEAD_PID = 4_194_400;

t.test('uploads spool under the data folder; a killed process\'s spool is removed at the next start', async (t) => {
  const leftover = join(logbookHome(), 'spool', String(DEAD_PID), 'body-x');
  mkdirSync(leftover, { recursive: true });
  writeFileSync(join(leftover, 'text'), 'an interrupted upload');
  const server = await startTestServer(t);
  t.notOk(existsSync(join(logbookHome(), 'spool', String(DEAD_PID))), 'the dead process\'s folder is gone');
  t.equal(server.services.spoolFolder, join(logbookHome(), 'spool', String(process.pid)));

  const op = await createOperator(server.db.pool);
  for (const [path, head] of [
    ['/api/v2/qso', `{"adif":"`],
    ['/api/qso', `{"type":"adif","string":"`],
  ] as const) {
    // The document comes before the members that say where it goes, so it must wait on disk.
    const req = request(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${op.token}` } });
    const answered = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
    });
    req.write(head + '<comment:4>abcd'.repeat(40_000));
    let spooled: string[] = [];
    for (let i = 0; i < 100 && spooled.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      spooled = existsSync(server.services.spoolFolder) ? readdirSync(server.services.spoolFolder) : [];
    }
    t.equal(spooled.length, 1, `${path}: the document waits in the process's spool folder`);
    req.end(`","station_profile_id":${op.stationId},"import_type":"adif","key":"wl0123456789abc"}`);
    await answered;
    t.same(readdirSync(server.services.spoolFolder), [], `${path}: and is removed when the request ends`);
  }
});
