/**
 * The browser's address for log lines: the first X-Forwarded-For entry or
 * X-Real-IP when a reverse proxy sets them, else the peer address.
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';

/** uWS prints IPv4 peers of a dual-stack socket as 0000:…:ffff:7f00:0001. */
const IPV4_MAPPED = '0000:0000:0000:0000:0000:ffff:';

function ipv4FromMapped(tail: string): string {
  const hex = tail.replace(':', '');
  return [0, 2, 4, 6].map((i) => parseInt(hex.slice(i, i + 2), 16)).join('.');
}

/** Must be called synchronously in the uWS handler. Proxy headers are client-controlled, so only address characters are kept. */
export function clientAddress(res: HttpResponse, req: HttpRequest): string {
  const forwarded = req.getHeader('x-forwarded-for').split(',')[0]?.trim() || req.getHeader('x-real-ip').trim();
  if (forwarded) return forwarded.slice(0, 64).replace(/[^0-9a-fA-F.:%]/g, '?');
  const address = Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
  return address.startsWith(IPV4_MAPPED) ? ipv4FromMapped(address.slice(IPV4_MAPPED.length)) : address;
}
