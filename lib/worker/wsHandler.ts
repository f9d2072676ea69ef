/**
 * Browser WebSocket protocol on `/ws?topic=<topic>`:
 * - before the upgrade: missing topic → 400, unregistered topic → 404;
 * - the first frame must be `{type:"auth",token}` within the auth timeout,
 *   answered by `{type:"auth_ok"}` or an error frame and a close;
 * - afterwards the socket only receives `{type:"push",payload}` frames (until its token expires
 *   or is revoked: an error frame and a close, ./socketHub.ts), except
 *   on the reserved status topic where `{type:"status"}` returns a snapshot.
 */
import type { HttpRequest, HttpResponse, us_socket_context_t, WebSocketBehavior } from 'uWebSockets.js';
import type { Logger } from '../log.js';
import { verifyBrowserToken, type TokenKey } from './browserToken.js';
import { clientAddress } from './clientAddress.js';
import type { TopicRegistry } from './registry.js';
import type { RevocationList } from './revocations.js';
import type { SocketData, SocketHub, WorkerSocket } from './socketHub.js';
import { STATUS_TOPIC, type StatusReporter } from './status.js';

/** The only legitimate inbound frames are tiny; uWS closes the socket on anything larger. */
export const MAX_INBOUND_FRAME_BYTES = 4 * 1024;
/** Ping after 32 s of silence, drop the socket if nothing arrives within 16 s more (uWS splits the timeout). */
const IDLE_TIMEOUT_SECONDS = 48;
const STATUS_MIN_INTERVAL_MS = 700;
/** Policy violation: the socket failed authentication. */
const CLOSE_POLICY = 1008;

const AUTH_REQUIRED = JSON.stringify({ type: 'error', code: 'auth_required', message: 'first frame must be {type:auth,token:...}' });
const UNAUTHORIZED = JSON.stringify({ type: 'error', code: 'unauthorized', message: 'invalid or expired token' });
const AUTH_OK = JSON.stringify({ type: 'auth_ok' });

interface Deps {
  /** Verifies browser tokens (browserTokenKey in ./workerKeys.ts). */
  tokenKey: TokenKey;
  registry: TopicRegistry;
  revocations: RevocationList;
  hub: SocketHub;
  status: StatusReporter;
  logger: Logger;
  authTimeoutMs: number;
  maxBackpressureBytes: number;
}

function parseFrame(message: ArrayBuffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(message).toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function createWsBehavior(deps: Deps): WebSocketBehavior<SocketData> {
  const { tokenKey, registry, revocations, hub, status, logger, authTimeoutMs, maxBackpressureBytes } = deps;

  function reject(ws: WorkerSocket, frame: string, reason: string): void {
    const data = ws.getUserData();
    logger.info(`ws: ${reason}`, { topic: data.topic, ip: data.ip });
    ws.send(frame, false, false);
    ws.end(CLOSE_POLICY, reason);
  }

  function authenticate(ws: WorkerSocket, message: ArrayBuffer): void {
    const data = ws.getUserData();
    clearTimeout(data.authTimer);
    data.authTimer = undefined;
    const frame = parseFrame(message);
    const token = frame?.token;
    if (frame?.type !== 'auth' || typeof token !== 'string' || token === '') {
      return reject(ws, AUTH_REQUIRED, 'auth_required');
    }
    if (data.meta.require_token) {
      const check = verifyBrowserToken(tokenKey, token, data.topic);
      if (!check.ok) return reject(ws, UNAUTHORIZED, `unauthorized (${check.reason})`);
      const tokenId = check.claims.token_id ?? 0;
      if (tokenId > 0 && revocations.has(tokenId)) return reject(ws, UNAUTHORIZED, 'unauthorized (api token revoked)');
      data.userId = check.claims.user_id;
      data.tokenId = tokenId;
      data.expires = check.claims.expires;
    }
    data.authenticated = true;
    // auth_ok goes out before the subscription exists, so no push can precede it.
    ws.send(AUTH_OK, false, false);
    hub.subscribe(ws);
    logger.info('ws: client connected', { topic: data.topic, ip: data.ip, user_id: data.userId });
  }

  function answerStatus(ws: WorkerSocket, message: ArrayBuffer): void {
    const data = ws.getUserData();
    if (parseFrame(message)?.type !== 'status') return;
    const now = Date.now();
    if (now - data.lastStatusAt < STATUS_MIN_INTERVAL_MS) return;
    data.lastStatusAt = now;
    status
      .socket()
      .then((snapshot) => {
        if (!data.closed) ws.send(JSON.stringify({ type: 'status', payload: snapshot }), false, false);
      })
      .catch((err: Error) => logger.error('ws: status snapshot failed', { error: err.message }));
  }

  return {
    maxPayloadLength: MAX_INBOUND_FRAME_BYTES,
    // Over the limit uWS drops frames for that socket only; closing is left to the hub's slow-consumer sweep.
    maxBackpressure: maxBackpressureBytes,
    closeOnBackpressureLimit: 0,
    idleTimeout: IDLE_TIMEOUT_SECONDS,
    sendPingsAutomatically: true,

    upgrade(res: HttpResponse, req: HttpRequest, context: us_socket_context_t) {
      // HttpRequest is only valid synchronously: read everything before awaiting.
      const topic = req.getQuery('topic') ?? '';
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const ip = clientAddress(res, req);
      if (topic === '') {
        res.writeStatus('400 Bad Request').end('missing topic\n');
        return;
      }
      let aborted = false;
      res.onAborted(() => {
        aborted = true;
      });
      registry
        .lookup(topic)
        .catch((err: Error) => {
          logger.error('ws: topic lookup failed', { topic, error: err.message });
          return null;
        })
        .then((meta) => {
          if (aborted) return;
          res.cork(() => {
            if (!meta) {
              res.writeStatus('404 Not Found').end('topic not registered\n');
              return;
            }
            const data: SocketData = {
              topic,
              meta,
              ip,
              authenticated: false,
              userId: 0,
              tokenId: 0,
              expires: 0,
              closed: false,
              authTimer: undefined,
              backedUpSince: 0,
              lastStatusAt: 0,
            };
            res.upgrade(data, key, protocol, extensions, context);
          });
        });
    },

    open(ws) {
      hub.opened(ws);
      const data = ws.getUserData();
      data.authTimer = setTimeout(() => {
        data.authTimer = undefined;
        if (!data.closed && !data.authenticated) reject(ws, AUTH_REQUIRED, 'auth_required (timeout)');
      }, authTimeoutMs);
    },

    message(ws, message) {
      const data = ws.getUserData();
      if (!data.authenticated) return authenticate(ws, message);
      if (data.topic === STATUS_TOPIC) answerStatus(ws, message);
      // Any other inbound frame is ignored: browsers talk to the application, not the worker.
    },

    close(ws) {
      const data = ws.getUserData();
      data.closed = true;
      clearTimeout(data.authTimer);
      hub.closed(ws);
      if (data.authenticated) logger.info('ws: client disconnected', { topic: data.topic, ip: data.ip });
    },
  };
}
