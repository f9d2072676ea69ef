import type pg from 'pg';
import { createKey, type KeyRights } from '../../lib/auth/keys.js';
import type { TestResponse, TestServer } from '../helpers/server.js';
import { insertQsos, type QsoRow } from '../helpers/qsoRows.js';

/** A v1 key of `userId` (the club for club keys, then `createdBy` is the member). */
export async function v1Key(db: pg.Pool, userId: number, rights: KeyRights = 'rw', createdBy = userId): Promise<string> {
  return (await createKey(db, userId, rights, createdBy)).key;
}

/** Both path forms a v1 call answers on, the second with index.php and a trailing slash. */
export function bothPaths(name: string): [string, string] {
  return [`/api/${name}`, `/index.php/api/${name}/`];
}

/** POST a JSON value (or raw text) the way v1 clients do. */
export function post(server: TestServer, path: string, body: unknown): Promise<TestResponse> {
  return typeof body === 'string'
    ? server.request(path, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
    : server.request(path, { method: 'POST', json: body });
}

/** Stores one QSO row directly (the import engine is tested elsewhere); returns its id. */
export async function insertQso(db: pg.Pool, row: QsoRow): Promise<number> {
  return (await insertQsos(db, [row]))[0]!;
}
