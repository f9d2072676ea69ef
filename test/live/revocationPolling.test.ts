import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { revokeToken } from '../../lib/auth/tokens.js';
import { inTransaction } from '../../lib/db/transaction.js';
import { listenForRevocations } from '../../lib/live/revocationListener.js';
import { createLogger } from '../../lib/log.js';
import { testDatabase } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';

// Behind pgbouncer's transaction pooling LISTEN cannot work: the listener polls instead, and
// must hear every revocation, each once however many polls see it.

t.test('polled revocations: each revoked token is told once, a revocation made while running too', async (t) => {
  const db = await testDatabase(t);
  const before = await createOperator(db.pool);
  const during = await createOperator(db.pool);
  const kept = await createOperator(db.pool);
  await revokeToken(db.pool, before.tokenId);
  const told: number[] = [];
  const listener = await listenForRevocations({
    url: db.url, tokenTtlSeconds: 3600, pollMs: 50, logger: createLogger({}, true), revoke: (id) => told.push(id),
  });
  t.teardown(() => listener.close());
  t.same(told, [before.tokenId], 'a revocation made before the start is caught up at once');
  // Without its NOTIFY: only a poll can find this one (a listener would never hear of it).
  await inTransaction(db.pool, async (client) => {
    await client.query('ALTER TABLE api_tokens DISABLE TRIGGER api_token_revoked');
    await client.query('UPDATE api_tokens SET revoked_at = now() WHERE id = $1', [during.tokenId]);
    await client.query('ALTER TABLE api_tokens ENABLE TRIGGER api_token_revoked');
  });
  for (let i = 0; i < 100 && told.length < 2; i++) await sleep(20);
  await sleep(200);
  t.same(told, [before.tokenId, during.tokenId], 'the new revocation told once, the old one not again');
  t.notOk(told.includes(kept.tokenId), 'a token not revoked is not told');
});
