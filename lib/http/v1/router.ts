import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../services.js';
import { V1Failure, type V1Call } from './call.js';
import { readV1Body, type V1Body, type V1Text } from './body.js';
import { sendJson } from './answer.js';
import { enforceV1RateLimit } from './rateLimit.js';
import { authenticateKey } from './keyAuth.js';
import { v1Calls } from './calls/index.js';
import { ApiError } from '../errors.js';
import { takesUploadSlot } from '../upload/uploadSlots.js';

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

/** An upload place held by a request (see UploadSlots), given back when the request ends. */
interface HeldPlace {
  release: (() => void) | null;
}

/**
 * An upload place for the key's owner, as the v2 uploads take one: a body of many records (the
 * call names a text member) that is compressed, of undeclared length or over 1 MiB. Refused,
 * the v1 failure with the same status (429 owner full, 503 process full) and Retry-After.
 */
function takeUploadPlace(call: V1Call, ctx: Context, services: Services, owner: number, place: HeldPlace): void {
  if (!call.textMember || !takesUploadSlot(ctx.req.headers)) return;
  try {
    place.release = services.uploads.take(owner);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw new V1Failure({ status: error.status, body: { status: 'failed', reason: error.message, retry_after: error.details.retry_after } }, error.headers);
  }
}

/**
 * Reads the body, judging the key as soon as it is known: a URL key before any body byte is
 * read, a body key the moment its member is complete. A refused key ends the reading (the
 * rest of the body is never held) and the call gives its own answer for a bad key. The
 * method's bucket is charged once: per key when one is accepted, else per client address.
 * An accepted key's upload takes its place before more of the body is read.
 */
async function readBody(call: V1Call, ctx: Context, services: Services, segment: string | null, place: HeldPlace): Promise<V1Body> {
  const { config } = services;
  let charged = false;
  const accept = async (key: unknown) => {
    const holder = await authenticateKey(ctx, services, key);
    if (!holder) return false;
    charged = true;
    await enforceV1RateLimit(ctx, services, call.name, key);
    takeUploadPlace(call, ctx, services, holder.userId, place);
    return true;
  };
  const keyInPath = call.keyInPath === true && segment !== null;
  const keyAccepted = keyInPath && (await accept(segment));
  if (keyInPath && !keyAccepted) return { kind: 'refused', members: {} };
  let read: V1Body = { kind: 'empty' };
  if (ctx.method === 'POST') {
    read = await readV1Body(ctx.req, {
      maxBodyBytes: call.textMember ? config.max_body_bytes : config.max_json_body_bytes,
      maxJsonBytes: config.max_json_body_bytes,
      keyAccepted,
      checkKey: keyInPath ? undefined : accept,
      textMember: call.textMember,
      spoolFolder: services.spoolFolder,
      filter: call.bodyFilter?.(),
    });
  }
  if (!charged) await enforceV1RateLimit(ctx, services, call.name, undefined);
  return read;
}

/**
 * One v1 request: body and key (see readBody), the call's own "wrong JSON" answer, then the
 * call. V1Failure answers are written here; anything else goes on to the error handler (500).
 */
async function dispatch(call: V1Call, path: RegExp, ctx: Context, services: Services): Promise<void> {
  ctx.state.api = 'v1';
  ctx.state.resource = call.name;
  let text: V1Text | null = null;
  const place: HeldPlace = { release: null };
  try {
    const segment = decodeSegment(path.exec(ctx.path)?.[1]);
    const read = await readBody(call, ctx, services, segment, place);
    if (read.kind === 'json') text = read.text;
    const json = read.kind === 'json' ? read.value : read.kind === 'refused' ? read.members : undefined;
    const wrongJson = read.kind === 'empty' || read.kind === 'invalid' || (call.requireObject && !isObject(json));
    if (call.wrongJson && wrongJson) throw new V1Failure(call.wrongJson);
    const body = isObject(json) ? json : {};
    const key = call.keyInPath && segment !== null ? segment : body.key;
    const bodyProblem = read.kind === 'empty' || read.kind === 'invalid' ? read.kind : null;
    await call.handle({ ctx, services, json, bodyProblem, body, segment, key, text });
  } catch (error) {
    if (!(error instanceof V1Failure)) throw error;
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    sendJson(ctx, error.answer.status, error.answer.body);
  } finally {
    await text?.discard();
    place.release?.();
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
