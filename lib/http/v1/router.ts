import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../services.js';
import { V1Failure, type V1Call } from './call.js';
import { readV1Body, type V1Body } from './body.js';
import { sendJson } from './answer.js';
import { enforceV1RateLimit } from './rateLimit.js';
import { v1Calls } from './calls/index.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `/api/<name>` and `/index.php/api/<name>`, with an optional segment and trailing slash. */
function pathFor(call: V1Call): RegExp {
  return new RegExp(`^(?:/index\\.php)?/api/${call.name}(?:/([^/]*))?/?$`);
}

function decodeSegment(raw: string | undefined): string | null {
  if (!raw) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * One v1 request: body (with the call's own "wrong JSON" answer), key, rate-limit bucket by
 * method name, then the call. V1Failure answers are written here; anything else goes on to
 * the error handler (500).
 */
async function dispatch(call: V1Call, path: RegExp, ctx: Context, services: Services): Promise<void> {
  ctx.state.api = 'v1';
  ctx.state.resource = call.name;
  try {
    const segment = decodeSegment(path.exec(ctx.path)?.[1]);
    const limit = call.largeBody ? services.config.max_body_bytes : services.config.max_json_body_bytes;
    const read: V1Body = ctx.method === 'POST' ? await readV1Body(ctx, limit, call.prepareBody) : { kind: 'empty' };
    const json = read.kind === 'json' ? read.value : undefined;
    if (call.wrongJson && (read.kind !== 'json' || (call.requireObject && !isObject(json)))) throw new V1Failure(call.wrongJson);
    const body = isObject(json) ? json : {};
    const key = call.keyInPath && segment !== null ? segment : body.key;
    await enforceV1RateLimit(ctx, services, call.name, key);
    await call.handle({ ctx, services, json, bodyProblem: read.kind === 'json' ? null : read.kind, body, segment, key });
  } catch (error) {
    if (!(error instanceof V1Failure)) throw error;
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    sendJson(ctx, error.answer.status, error.answer.body);
  }
}

/**
 * The legacy v1 RPC interface (SPEC "Legacy v1 interface"): POST with JSON bodies; calls whose
 * key may be the last URL segment also answer GET. Mounted after the v2 dispatcher, which owns
 * everything under `/api/v2`.
 */
export function v1Router(services: Services): Router {
  const router = new Router();
  for (const call of v1Calls) {
    const path = pathFor(call);
    const handler = (ctx: Context) => dispatch(call, path, ctx, services);
    router.post(path, handler);
    if (call.keyInPath) router.get(path, handler);
  }
  return router;
}
