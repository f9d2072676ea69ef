import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig, ConfigError, loadConfig, workerUrls } from '../lib/config.js';

t.test('defaults', async (t) => {
  const config = buildConfig({}, {});
  t.equal(config.api_rate_limits, null);
  t.same(config.apiv2_hide_userdata, []);
  t.ok(config.max_body_bytes >= 200 * 1024 * 1024, 'admits a 200 MB ADIF import');
  t.equal(config.metrics.path, '/metrics');
  t.equal(config.rate_limit_store, 'memory');
  t.equal(config.response_stall_timeout_ms, 30_000, 'a client reading nothing is dropped after half a minute, as long as a statement may run');
  t.equal(buildConfig({ response_stall_timeout_ms: 0 }, {}).response_stall_timeout_ms, 0, '0: never');
  t.equal(config.page_read_ahead_bytes, 1024 * 1024, 'a list page reads up to 1 MiB ahead of a slow client');
  t.same(config.database, { pool_mode: 'session' }, 'a direct connection (or session pooling), no LISTEN connection of its own');
  t.same(buildConfig({ database: { pool_mode: 'transaction', listen_url: 'postgres://db:5432/logbook' } }, {}).database,
    { pool_mode: 'transaction', listen_url: 'postgres://db:5432/logbook' });
});

t.test('rate-limit store: shared by default when several processes count', async (t) => {
  t.equal(buildConfig({}, {}, { processes: 2 }).rate_limit_store, 'postgres');
  t.equal(buildConfig({}, { REDIS_URL: 'redis://127.0.0.1:6379' }, { processes: 2 }).rate_limit_store, 'redis');
  t.equal(buildConfig({ rate_limit_store: 'memory' }, {}, { processes: 2 }).rate_limit_store, 'memory', 'no limits configured: nothing to share');
  t.throws(
    () => buildConfig({ rate_limit_store: 'memory', api_rate_limits: { default: { requests: 1, window: 1 } } }, {}, { processes: 2 }),
    /rate_limit_store "memory" would give each of the 2 worker processes its own windows/,
  );
});

t.test('valid values are kept', async (t) => {
  const config = buildConfig({
    api_rate_limits: { api_v2_auth: { requests: 30, window: 60 }, default: { requests: 600, window: 60 } },
    apiv2_hide_userdata: ['user_email'],
    worker: { url: 'http://127.0.0.1:9001', secret: 'x'.repeat(32), public_url: 'ws://127.0.0.1:9000' },
  }, {});
  t.same(config.api_rate_limits!.api_v2_auth, { requests: 30, window: 60 });
  t.same(config.apiv2_hide_userdata, ['user_email']);
  t.equal(config.worker.url, 'http://127.0.0.1:9001');
  t.same(workerUrls(config.worker), ['http://127.0.0.1:9001'], 'worker.url alone is one worker');
  const urls = ['http://10.0.0.1:9001', 'http://10.0.0.2:9001'];
  t.same(workerUrls(buildConfig({ worker: { urls } }, {}).worker), urls, 'worker.urls in order of preference');
  t.same(workerUrls(buildConfig({}, {}).worker), [], 'no worker');
  t.equal(buildConfig({}, { WORKER_SECRET: 's'.repeat(40) }).worker.secret, 's'.repeat(40), 'WORKER_SECRET env');
  t.equal(buildConfig({}, {}).worker.derived_keys, undefined, 'derived keys off by default (the original protocol)');
  t.equal(buildConfig({ worker: { derived_keys: true } }, {}).worker.derived_keys, true);
  t.equal(buildConfig({ worker: { derived_keys: true } }, { WORKER_DERIVED_KEYS: 'false' }).worker.derived_keys, false, 'WORKER_DERIVED_KEYS env wins');
});

t.test('a bad value stops start-up with one line naming the key', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [{ bogus: 1 }, /^config: unknown key bogus$/],
    [{ worker: { secret: 'short' } }, /^config: worker\.secret .*32/],
    [{ worker: { derived_keys: 'yes' } }, /^config: worker\.derived_keys /],
    [{ worker: { colour: 'red' } }, /^config: unknown key worker\.colour$/],
    [{ worker: { urls: [] } }, /^config: worker\.urls /],
    [{ worker: { urls: ['ws://127.0.0.1:9001'] } }, /^config: worker\.urls\.0 /],
    [{ worker: { url: 'http://127.0.0.1:9001', urls: ['http://127.0.0.1:9002'] } }, /^config: worker\.url and worker\.urls exclude each other/],
    [{ import_batch_rows: 0 }, /^config: import_batch_rows /],
    [{ api_rate_limits: { default: { requests: 0, window: 60 } } }, /^config: api_rate_limits\.default\.requests /],
    [{ api_rate_limits: { default: { requests: 5 } } }, /^config: api_rate_limits\.default .*window/],
    [{ apiv2_hide_userdata: ['user_callsign'] }, /^config: apiv2_hide_userdata\.0 /],
    [{ max_body_bytes: 'big' }, /^config: max_body_bytes /],
    [{ response_stall_timeout_ms: -1 }, /^config: response_stall_timeout_ms /],
    [{ page_read_ahead_bytes: 128 * 1024 * 1024 }, /^config: page_read_ahead_bytes /],
    [{ metrics: { path: '/api/v2/metrics' } }, /^config: metrics\.path /],
    [{ database: { pool_mode: 'statement' } }, /^config: database\.pool_mode /],
    [{ database: { listen_url: 'redis://127.0.0.1' } }, /^config: database\.listen_url /],
    [{ database: { pooler: 'pgbouncer' } }, /^config: unknown key database\.pooler$/],
    [[], /^config: /],
  ];
  for (const [input, message] of cases) {
    const error = t.throws(() => buildConfig(input, {})) as Error;
    t.type(error, ConfigError);
    t.match(error.message, message, JSON.stringify(input));
    t.notMatch(error.message, /\n/, 'one line');
  }
  t.throws(() => buildConfig({}, { WORKER_SECRET: 'short' }), /worker\.secret/);
  t.throws(() => buildConfig({}, { WORKER_DERIVED_KEYS: 'yes' }), /^config: WORKER_DERIVED_KEYS must be true or false$/);
  t.throws(() => buildConfig({ rate_limit_store: 'redis' }, {}), /REDIS_URL/);
});

t.test('files: unreadable, not JSON, valid', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'logbook-config-'));
  t.throws(() => loadConfig(join(dir, 'missing.json'), {}), /config: cannot read .*ENOENT/);
  writeFileSync(join(dir, 'bad.json'), '{ nope');
  t.throws(() => loadConfig(join(dir, 'bad.json'), {}), /config: .* is not valid JSON/);
  writeFileSync(join(dir, 'ok.json'), JSON.stringify({ apiv2_hide_userdata: ['user_email', 'user_name'] }));
  t.same(loadConfig(join(dir, 'ok.json'), {}).apiv2_hide_userdata, ['user_email', 'user_name']);
});
