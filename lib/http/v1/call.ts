import type { Context } from 'koa';
import type { Services } from '../../services.js';
import type { TextFilter, V1Text } from './body.js';

/** A v1 answer: status and JSON value (PHP's json_encode look), or an empty body. */
export interface V1Answer {
  status: number;
  body: unknown;
}

/**
 * Thrown by a call to end the request with one of the original product's answers
 * (`{status:"failed", reason:…}` and relatives); the router writes it.
 */
export class V1Failure extends Error {
  constructor(readonly answer: V1Answer, readonly headers: Record<string, string> = {}) {
    super(`v1 answer ${answer.status}`);
    this.name = 'V1Failure';
  }
}

/** `{status:"failed", reason}` with an HTTP status: the answer most v1 calls give for errors. */
export function failed(status: number, reason: string): V1Failure {
  return new V1Failure({ status, body: { status: 'failed', reason } });
}

/** What a call receives. */
export interface V1Request {
  ctx: Context;
  services: Services;
  /** The parsed JSON body; undefined when `bodyProblem` says why there is none. */
  json: unknown;
  bodyProblem: 'empty' | 'invalid' | null;
  /** `json` when it is a JSON object, else an empty object, as PHP's `$obj['field']` reads it. */
  body: Readonly<Record<string, unknown>>;
  /** The URL segment after the call name (`/api/qso/<segment>`), URL-decoded; null when absent. */
  segment: string | null;
  /** The key as presented: URL segment for calls that take it there, else the body's `key`. */
  key: unknown;
  /**
   * The call's `textMember` when the body carried it as a string (not in `body`); the router
   * discards a spooled one after the call.
   */
  text: V1Text | null;
}

export interface V1Call {
  /** The method name in `/api/<name>`, also the rate-limit bucket and `ctx.state.resource`. */
  name: string;
  /** The key may be the last URL segment; such calls also answer GET. */
  keyInPath?: boolean;
  /**
   * The answer for a body that is not JSON (or not an object, when `requireObject`).
   * Without it the call reads such a body as an empty object, as the original did.
   */
  wrongJson?: V1Answer;
  requireObject?: boolean;
  /** Makes a filter that rewrites the raw body text, chunk by chunk, before JSON parsing. */
  bodyFilter?: () => TextFilter;
  /**
   * A top-level string member that may be large (an ADIF upload): read into `text`, kept out
   * of memory, and allowed up to `max_body_bytes` instead of `max_json_body_bytes`.
   */
  textMember?: string;
  handle(request: V1Request): Promise<void>;
}
