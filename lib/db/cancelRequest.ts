import { connect } from 'node:net';
import type pg from 'pg';

/** The CancelRequest code of the PostgreSQL protocol (1234 << 16 | 5678). */
const CANCEL_REQUEST_CODE = 80877102;

/** How long a cancel request may take to deliver before its connection is dropped. */
const CANCEL_WAIT_MS = 2000;

/** node-postgres keeps the BackendKeyData of the start-up handshake; its types do not declare it. */
interface KeyedClient {
  processID: number | null;
  secretKey: number | null;
}

/**
 * Asks the server to cancel what `client`'s backend is running, on a new connection with the
 * client's BackendKeyData: the way behind pgbouncer, which hands out keys of its own and
 * forwards the request to whichever backend the client holds (pg_terminate_backend of its
 * process id would hit nothing, or another client's backend). Resolves once the server has
 * closed the request's connection (it answers nothing), or after CANCEL_WAIT_MS; never rejects.
 */
export function cancelRequest(client: pg.Client): Promise<void> {
  const { processID, secretKey } = client as unknown as KeyedClient;
  if (processID === null || secretKey === null) return Promise.resolve();
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  packet.writeInt32BE(processID, 8);
  packet.writeInt32BE(secretKey, 12);
  // A host that is a folder is a Unix socket's, as node-postgres reads it.
  const socket = client.host.startsWith('/') ? connect(`${client.host}/.s.PGSQL.${client.port}`) : connect(client.port, client.host);
  return new Promise((resolve) => {
    const timer = setTimeout(() => socket.destroy(), CANCEL_WAIT_MS);
    // Written, not ended: pgbouncer drops a cancel request whose client hangs up before it is forwarded.
    socket.on('connect', () => socket.write(packet));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.resume();
  });
}
