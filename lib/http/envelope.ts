import type { Context } from 'koa';
import type { ApiError } from './errors.js';

/** `YYYY-MM-DDTHH:MM:SS+00:00`, the envelope's timestamp form. */
export function envelopeTimestamp(now = new Date()): string {
  return now.toISOString().slice(0, 19) + '+00:00';
}

export interface EnvelopeMeta {
  resource: string;
  method: string;
  [key: string]: unknown;
}

export function metaFor(resource: string, method: string, extra: Record<string, unknown> = {}): EnvelopeMeta {
  return { timestamp: envelopeTimestamp(), resource, method, ...extra };
}

export function sendData(ctx: Context, data: unknown, meta: EnvelopeMeta, status = 200): void {
  ctx.status = status;
  ctx.body = { data, meta };
}

export function sendError(ctx: Context, error: ApiError): void {
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  ctx.body = { error: { code: error.code, message: error.message, details: error.details } };
}
