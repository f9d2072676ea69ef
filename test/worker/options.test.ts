import t from 'tap';
import { parseTopic, radioTopic, radiosUserTopic, stationTopic, userTopic } from '../../lib/live/topics.js';
import { workerOptionsFromCli } from '../../lib/worker/index.js';

const SECRET = 's'.repeat(32);

t.test('topic names round-trip through parseTopic', async (t) => {
  t.equal(stationTopic(12), 'station.12');
  t.equal(userTopic(3), 'qsos_user.3');
  t.equal(radioTopic(4), 'radio.4');
  t.equal(radiosUserTopic(5), 'radios_user.5');
  t.same(parseTopic(stationTopic(12)), { kind: 'station', id: 12 });
  t.same(parseTopic(userTopic(3)), { kind: 'qsos_user', id: 3 });
  t.same(parseTopic(radioTopic(4)), { kind: 'radio', id: 4 });
  t.same(parseTopic(radiosUserTopic(5)), { kind: 'radios_user', id: 5 });
  for (const foreign of ['worker.status', 'station.', 'station.0', 'station.01', 'station.1.2', 'station.-1', 'Station.1', 'dxspots', 'radio.99999999999999999']) {
    t.equal(parseTopic(foreign), null, foreign);
  }
});

t.test('worker options from flags, environment and config', async (t) => {
  t.match(workerOptionsFromCli({ argv: [], env: { WORKER_SECRET: SECRET } }), {
    wsPort: 9000,
    internalPort: 9001,
    secret: SECRET,
    derivedKeys: false,
    redisUrl: undefined,
  });
  t.equal(workerOptionsFromCli({ argv: [], env: { WORKER_SECRET: SECRET }, config: { worker: { derived_keys: true } } }).derivedKeys, true, 'config worker.derived_keys');
  t.match(
    workerOptionsFromCli({
      argv: ['--ws-port', '0', '--internal-port', '9101', '--internal-bind', '0.0.0.0'],
      env: { REDIS_URL: 'redis://r:6379/2' },
      config: { worker: { secret: SECRET, topic_ttl: 3600 } },
    }),
    { wsPort: 0, internalPort: 9101, internalBind: '0.0.0.0', secret: SECRET, redisUrl: 'redis://r:6379/2', topicTtlSeconds: 3600 },
  );
  t.equal(workerOptionsFromCli({ argv: [], env: { WORKER_SECRET: SECRET }, config: { worker: { secret: 'other' } } }).secret, SECRET, 'environment wins');

  t.throws(() => workerOptionsFromCli({ argv: [], env: {} }), /no secret: set WORKER_SECRET or config worker.secret/);
  t.throws(() => workerOptionsFromCli({ argv: [], env: { WORKER_SECRET: 'short' } }), /WORKER_SECRET is too short/);
  t.throws(() => workerOptionsFromCli({ argv: [], env: {}, config: { worker: { secret: 'short' } } }), /config worker.secret is too short/);
  t.throws(() => workerOptionsFromCli({ argv: ['--ws-port', 'abc'], env: { WORKER_SECRET: SECRET } }), /--ws-port must be a port/);
  t.throws(() => workerOptionsFromCli({ argv: ['--bogus'], env: { WORKER_SECRET: SECRET } }), /bogus/);
  t.throws(() => workerOptionsFromCli({ argv: [], env: { WORKER_SECRET: SECRET }, config: { worker: { topic_ttl: -1 } } }), /worker.topic_ttl/);
  t.throws(() => workerOptionsFromCli({ argv: [], env: { WORKER_SECRET: SECRET }, config: { worker: { derived_keys: 'yes' } } }), /worker.derived_keys must be true or false/);
});
