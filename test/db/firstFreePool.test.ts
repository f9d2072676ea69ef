import t, { type Test } from 'tap';
import net from 'node:net';
import { once } from 'node:events';
import type pg from 'pg';
import { testDatabase } from '../helpers/db.js';
import { timed } from '../helpers/timed.js';
import { FirstFreePool } from '../../lib/db/firstFreePool.js';

/**
 * A TCP relay to the test database whose next connections reach it late (a backend slow to
 * start, as on a loaded machine) or, refused, not at all. The database behind it is real.
 */
async function slowRelay(t: Test, databaseUrl: string) {
  const target = new URL(databaseUrl);
  const relay = { delayMs: 0, refuse: false };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.pause();
    setTimeout(() => {
      if (relay.refuse) return void socket.destroy();
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      sockets.add(upstream);
      upstream.on('close', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
      socket.pipe(upstream).pipe(socket);
      socket.resume();
    }, relay.delayMs);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return { relay, url: url.toString() };
}

/** A FirstFreePool of 3 connections through a slow relay to a fresh test database. */
async function poolBehindRelay(t: Test) {
  const db = await testDatabase(t);
  const { relay, url } = await slowRelay(t, db.url);
  const pool = new FirstFreePool({ connectionString: url, max: 3 });
  t.teardown(() => pool.end());
  return { relay, pool };
}

async function pid(client: pg.PoolClient): Promise<number> {
  return (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
}

t.test('a check-out waiting on a slow new connection takes one released meanwhile', async (t) => {
  const { relay, pool } = await poolBehindRelay(t);
  const first = await pool.connect();
  const firstPid = await pid(first);
  relay.delayMs = 1500;
  // No idle connection and room to grow: the pool opens one, which takes 1.5 s to reach the database.
  const waiting = timed(pool.connect());
  setTimeout(() => first.release(), 50);
  const { value: second, ms } = await waiting;
  t.ok(ms < 1000, `served by the connection released after 50 ms, not the opening (${ms} ms)`);
  t.equal(await pid(second), firstPid, 'it is the released connection');
  // The opening goes on and joins the idle connections when done.
  await new Promise((resolve) => setTimeout(resolve, 1700));
  t.equal(pool.totalCount, 2, 'the opened connection is kept');
  t.equal(pool.idleCount, 1, 'and idle');
  const third = await timed(pool.connect());
  t.ok(third.ms < 200, `the next check-out takes it at once (${third.ms} ms)`);
  t.not(await pid(third.value), firstPid);
  second.release();
  third.value.release();
});

t.test('a connection opened after its check-out was served serves the next one waiting', async (t) => {
  const { relay, pool } = await poolBehindRelay(t);
  const first = await pool.connect();
  relay.delayMs = 1000;
  const a = timed(pool.connect());
  setTimeout(() => first.release(), 50);
  const served = await a;
  relay.delayMs = 2500;
  // b opens a connection of its own (2.5 s), but the one opened for a arrives first (1 s).
  const b = await timed(pool.connect());
  t.ok(b.ms < 2000, `served by the earlier opening (${b.ms} ms)`);
  served.value.release();
  b.value.release();
});

t.test('a failed opening fails its check-out unless another connection served it', async (t) => {
  const { relay, pool } = await poolBehindRelay(t);
  pool.on('error', () => undefined);
  const first = await pool.connect();
  relay.refuse = true;
  await t.rejects(timed(pool.connect()), 'the database unreachable: the check-out fails instead of waiting');
  relay.delayMs = 500;
  // This opening fails after its check-out was served by a release.
  const waiting = pool.connect();
  setTimeout(() => first.release(), 50);
  const second = await waiting;
  t.equal(typeof (await pid(second)), 'number', 'served by the released connection');
  await new Promise((resolve) => setTimeout(resolve, 700));
  second.release();
  t.equal(pool.totalCount, 1, 'the failed opening is gone');
  relay.refuse = false;
  t.same((await pool.query<{ one: number }>('SELECT 1 AS one')).rows, [{ one: 1 }], 'the pool goes on');
});
