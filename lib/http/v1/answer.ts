import type { Context } from 'koa';

const NON_ASCII = /[\u0080-\uffff]/g;

function escapeUnit(unit: string): string {
  return '\\u' + unit.charCodeAt(0).toString(16).padStart(4, '0');
}

/**
 * Non-ASCII as `\uXXXX` (UTF-16 units, so emoji become surrogate pairs), as PHP's json_encode
 * writes it: clients written against the original see the same bytes. `/` is not escaped
 * (PHP writes `\/`): every JSON parser reads both alike.
 */
export function asciiJson(jsonText: string): string {
  return jsonText.replace(NON_ASCII, escapeUnit);
}

/** JSON text of `value` in json_encode's look; `pretty` is JSON_PRETTY_PRINT (four spaces). */
export function encodeJson(value: unknown, pretty = false): string {
  return asciiJson(JSON.stringify(value, null, pretty ? 4 : undefined));
}

/** The contents of a JSON string literal for `text`, without the quotes. */
export function jsonStringContents(text: string): string {
  return asciiJson(JSON.stringify(text).slice(1, -1));
}

export function sendJson(ctx: Context, status: number, value: unknown, pretty = false): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = encodeJson(value, pretty);
}

/** Status 200 with nothing in the body: the original's answer where its code had no branch. */
export function sendEmpty(ctx: Context): void {
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = '';
}

export function sendXml(ctx: Context, xml: string): void {
  ctx.status = 200;
  ctx.type = 'text/xml';
  ctx.body = xml;
}
