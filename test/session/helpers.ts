import type pg from 'pg';
import { createUser } from '../../lib/accounts/users.js';
import { hashPassword } from '../../lib/auth/passwords.js';
import type { TestResponse, TestServer } from '../helpers/server.js';

let counter = 0;

export const PASSWORD = 'correct horse battery';

/** PASSWORD hashed once: each hash costs what a sign-in costs (tens of ms, seconds on a loaded machine). */
let hashed: Promise<string> | undefined;

/** A user who can sign in with PASSWORD. */
export async function userWithPassword(db: pg.Pool, options: { admin?: boolean; callsign?: string } = {}): Promise<{ userId: number; username: string }> {
  counter += 1;
  const username = `ann${counter}-${process.pid}`;
  hashed ??= hashPassword(PASSWORD);
  const userId = await createUser(db, {
    username, callsign: options.callsign ?? `DL${counter}ANN`, isAdmin: options.admin, passwordHash: await hashed,
  });
  return { userId, username };
}

/** A browser as the app's endpoints see it: keeps the session cookie, sends the CSRF header. */
export class AppClient {
  cookie: string | null = null;
  csrf: string | null = null;
  /** The last Set-Cookie line for the session cookie. */
  setCookie: string | null = null;

  constructor(private readonly server: TestServer) {}

  async call(method: string, path: string, options: { json?: unknown; headers?: Record<string, string>; csrf?: boolean } = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookie) headers.cookie = this.cookie;
    if (options.csrf !== false && this.csrf) headers['x-csrf-token'] = this.csrf;
    if (options.json !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(this.server.url + path, {
      method, headers, body: options.json === undefined ? undefined : JSON.stringify(options.json),
    });
    const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith('logbook_session='));
    if (line) {
      this.setCookie = line;
      const value = line.split(';')[0]!;
      this.cookie = value === 'logbook_session=' ? null : value;
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, text, body };
  }

  async signIn(username: string, password = PASSWORD): Promise<TestResponse> {
    const res = await this.call('POST', '/app/session', { json: { username, password } });
    if (res.status === 200) this.csrf = res.body.csrf;
    return res;
  }
}
