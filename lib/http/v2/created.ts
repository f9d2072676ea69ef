import type { Context } from 'koa';
import type { HandlerResult } from './resource.js';

/**
 * The answer to a create: 201 with the new item's address in `Location`. The address is the
 * collection path the request used plus the id, so `/index.php/api/v2/...` stays that way.
 */
export function created(ctx: Context, id: number, data: unknown): HandlerResult {
  return { data, status: 201, headers: { Location: `${ctx.path.replace(/\/+$/, '')}/${id}` } };
}
