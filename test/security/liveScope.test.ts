import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createClub } from '../helpers/fixtures.js';

t.test('club QSO topics follow the QSO list scope: members below officer level get none', async (t) => {
  const server = await startTestServer(t, {
    // No worker listens there: registering a topic gives up after its short timeout.
    config: { worker: { url: 'http://127.0.0.1:9', secret: 'x'.repeat(32), public_url: 'ws://127.0.0.1:9', timeout_ms: 100 } },
  });
  const club = await createClub(server.db.pool);
  for (const topic of [`station.${club.clubStationId}`, `qsos_user.${club.clubId}`]) {
    for (const level of [3, 6] as const) {
      const member = await club.memberToken(level);
      t.equal((await server.request(`/live/token?topic=${topic}`, { token: member.token })).status, 404, `${topic}, level ${level}`);
    }
    const officer = await club.memberToken(9);
    t.equal((await server.request(`/live/token?topic=${topic}`, { token: officer.token })).status, 200, `${topic}, officer`);
  }
});

t.test('/live cannot be framed by another site', async (t) => {
  const server = await startTestServer(t);
  const page = await server.request('/live');
  t.equal(page.status, 200);
  t.match(page.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  t.equal(page.headers.get('x-frame-options'), 'DENY');
});
