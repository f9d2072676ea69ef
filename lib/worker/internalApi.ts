/**
 * Internal HTTP API for the application server (never exposed publicly):
 * register/unregister topics, publish payloads, report status. Status codes
 * and plain-text error bodies follow the original worker, so its application
 * side works unchanged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { Logger } from '../log.js';
import type { Fanout } from './fanout.js';
import type { RevocationRelay } from './revocationRelay.js';
import { isTokenId } from './revocations.js';
import { createHttpExchange, type HttpExchange } from './httpExchange.js';
import type { TopicRegistry } from './registry.js';
import type { StatusReporter } from './status.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reply header naming this run of the worker (random per start). A worker without Redis forgets
 * revocations when it restarts; the application notices the new id and sends them again
 * (lib/live/publisher.ts).
 */
export const INSTANCE_HEADER = 'X-Worker-Instance';

const TEXT = 'text/plain; charset=utf-8';

/**
 * Constant-time check of the secret header, which must carry the internal-call key (the worker
 * secret itself, or the key derived from it: ./workerKeys.ts). Both sides are hashed so the
 * compared buffers always have equal length and the key's length does not leak; the key's own
 * digest is computed once. An empty header never matches.
 */
export function createSecretCheck(internalKey: string): (given: string) => boolean {
  const expected = createHash('sha256').update(internalKey).digest();
  return (given) => given.length > 0 && timingSafeEqual(createHash('sha256').update(given).digest(), expected);
}

type JsonObject = Record<string, unknown>;

function parseObject(body: Buffer): JsonObject | null {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
  } catch {
    return null;
  }
}

/** A topic field: absent or empty → '' (the caller decides), wrong type → null. */
function topicField(body: JsonObject): string | null {
  if (body.topic === undefined || body.topic === null) return '';
  return typeof body.topic === 'string' ? body.topic : null;
}

interface Deps {
  /** What `X-Worker-Secret` must carry (internalCallKey in ./workerKeys.ts). */
  internalKey: string;
  /** Random per start: see INSTANCE_HEADER. */
  instanceId: string;
  registry: TopicRegistry;
  fanout: Fanout;
  revocations: RevocationRelay;
  status: StatusReporter;
  logger: Logger;
}

/** A revocation without `until` is kept this long: the default browser-token lifetime. */
const DEFAULT_REVOCATION_SECONDS = 3600;

type PostHandler = (body: JsonObject, reply: HttpExchange) => Promise<void>;

export function mountInternalApi(app: TemplatedApp, deps: Deps): void {
  const { registry, fanout, status, logger } = deps;
  const secretMatches = createSecretCheck(deps.internalKey);
  const headers = { [INSTANCE_HEADER]: deps.instanceId };
  const exchange = (res: HttpResponse) => createHttpExchange(res, headers);

  const fail = (reply: HttpExchange, code: string, message: string) => reply.send(code, `${message}\n`, TEXT);

  /** Method and secret are checked before the body is read, then the body is capped and parsed. */
  function post(handler: PostHandler) {
    return (res: HttpResponse, req: HttpRequest) => {
      const reply = exchange(res);
      if (req.getMethod() !== 'post') return fail(reply, '405 Method Not Allowed', 'method not allowed');
      if (!secretMatches(req.getHeader('x-worker-secret'))) return fail(reply, '403 Forbidden', 'forbidden');
      const declared = Number(req.getHeader('content-length') || '0');
      if (declared > MAX_BODY_BYTES) {
        return reply.send('413 Payload Too Large', 'request body too large (limit 1 MiB)\n', TEXT, true);
      }
      reply
        .readBody(MAX_BODY_BYTES)
        .then(async (result) => {
          if (result.kind === 'aborted') return;
          if (result.kind === 'too_large') {
            return reply.send('413 Payload Too Large', 'request body too large (limit 1 MiB)\n', TEXT, true);
          }
          const body = parseObject(result.body);
          if (!body) return fail(reply, '400 Bad Request', 'bad request');
          await handler(body, reply);
        })
        .catch((err: Error) => {
          logger.error('internal api: request failed', { error: err.message });
          fail(reply, '500 Internal Server Error', 'internal error');
        });
    };
  }

  /** GET calls: method and secret checked, no body. */
  function get(handler: (req: HttpRequest, reply: HttpExchange) => void) {
    return (res: HttpResponse, req: HttpRequest) => {
      const reply = exchange(res);
      if (req.getMethod() !== 'get') return fail(reply, '405 Method Not Allowed', 'method not allowed');
      if (!secretMatches(req.getHeader('x-worker-secret'))) return fail(reply, '403 Forbidden', 'forbidden');
      handler(req, reply);
    };
  }

  const register = post(async (body, reply) => {
    const topic = topicField(body);
    const meta = body.meta ?? {};
    const requireToken = typeof meta === 'object' && meta !== null ? (meta as JsonObject).require_token ?? false : null;
    if (!topic || typeof requireToken !== 'boolean') return fail(reply, '400 Bad Request', 'bad request');
    await registry.register(topic, { require_token: requireToken });
    logger.info('api: registered topic', { topic, require_token: requireToken });
    reply.send('200 OK');
  });

  // The original only forgets the topic; `close_sockets: true` (ours) also closes its sockets on every worker.
  const unregister = post(async (body, reply) => {
    const topic = topicField(body);
    if (!topic || (body.close_sockets !== undefined && typeof body.close_sockets !== 'boolean')) return fail(reply, '400 Bad Request', 'bad request');
    await registry.unregister(topic);
    if (body.close_sockets === true) fanout.closeTopic(topic);
    logger.info('api: unregistered topic', { topic, close_sockets: body.close_sockets === true });
    reply.send('200 OK');
  });

  const publish = post(async (body, reply) => {
    const topic = topicField(body);
    if (topic === null) return fail(reply, '400 Bad Request', 'bad request');
    if (topic === '') return fail(reply, '400 Bad Request', 'missing topic');
    if (!('payload' in body)) return fail(reply, '400 Bad Request', 'missing payload');
    // Unknown after a worker restart or TTL expiry; the application re-registers and retries.
    if (!(await registry.lookup(topic))) return fail(reply, '404 Not Found', 'topic not registered');
    fanout.publish(topic, JSON.stringify(body.payload));
    reply.send('200 OK');
  });

  const revoke = post(async (body, reply) => {
    if (!isTokenId(body.token_id)) return fail(reply, '400 Bad Request', 'bad request');
    const until = body.until === undefined ? Math.floor(Date.now() / 1000) + DEFAULT_REVOCATION_SECONDS : body.until;
    if (typeof until !== 'number' || !Number.isFinite(until)) return fail(reply, '400 Bad Request', 'bad request');
    await deps.revocations.revoke(body.token_id, Math.floor(until));
    reply.send('200 OK');
  });

  app.any('/internal/register', register);
  app.any('/internal/revoke', revoke);
  app.any('/internal/unregister', unregister);
  app.any('/internal/publish', publish);
  app.any('/internal/push', publish);

  app.any('/internal/status', get((req, reply) => {
    const withTopics = req.getQuery('topics') === '1';
    status
      .internal(withTopics)
      .then((snapshot) => reply.send('200 OK', `${JSON.stringify(snapshot)}\n`, 'application/json'))
      .catch((err: Error) => {
        logger.error('internal api: status failed', { error: err.message });
        fail(reply, '500 Internal Server Error', 'internal error');
      });
  }));

  // Cheap enough to be asked every few seconds: how the application notices a restart when idle.
  app.any('/internal/instance', get((_req, reply) => {
    reply.send('200 OK', `${JSON.stringify({ instance_id: deps.instanceId })}\n`, 'application/json');
  }));

  app.any('/*', (res) => {
    const reply = exchange(res);
    fail(reply, '404 Not Found', '404 page not found');
  });
}
