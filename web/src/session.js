// The one source of credentials: the server-side session (cookie) from /app/session, and the v2
// api_token it hands out, kept in memory only (never in localStorage: a script injected into the
// page could read it there, and a closed tab must forget it).

let current = null;
/** Why the last session ended under the app's feet (idle, signed out elsewhere), for the sign-in page; null after a sign-out. */
let ended = null;
const listeners = new Set();

const SESSION_ENDED = 'Your session has ended: it was unused for too long, or it was signed out or its password changed elsewhere. Sign in again.';

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

async function failure(response) {
  const body = await response.json().catch(() => ({}));
  const error = body.error || {};
  const retry = response.headers.get('retry-after');
  const message = error.message || response.statusText || 'HTTP ' + response.status;
  const saysWhen = retry && !/try again in/i.test(message);
  return new ApiError(response.status, error.code || '', saysWhen ? message + ' (try again in ' + retry + ' s)' : message, error.details);
}

function set(session, why = null) {
  current = session;
  ended = session ? null : why;
  for (const listener of listeners) listener(current);
}

export const session = () => current;
export const endedBecause = () => ended;
export function onSessionChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A call to the app's own endpoints: the cookie goes along, the CSRF header on every one but sign-in. */
export async function appCall(path, { method = 'GET', json } = {}) {
  const headers = {};
  if (current) headers['X-CSRF-Token'] = current.csrf;
  if (json !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, { method, headers, credentials: 'same-origin', body: json === undefined ? undefined : JSON.stringify(json) });
  if (response.status === 401 && path !== '/app/session') set(null, current ? SESSION_ENDED : null);
  if (!response.ok) throw await failure(response);
  return response.status === 204 ? null : response.json();
}

export async function signIn(username, password) {
  set(null);
  set(await appCall('/app/session', { method: 'POST', json: { username, password } }));
}

/** The session after a reload, or null when signed out. */
export async function restore() {
  try {
    set(await appCall('/app/session'));
  } catch (error) {
    if (error.status !== 401) throw error;
    // Only a session this page held has ended; a fresh page load was simply signed out.
    set(null, current ? SESSION_ENDED : null);
  }
  return current;
}

export async function signOut() {
  try { await appCall('/app/session', { method: 'DELETE' }); } finally { set(null); }
}

export async function changePassword(currentPassword, newPassword) {
  await appCall('/app/password', { method: 'POST', json: { current_password: currentPassword, new_password: newPassword } });
  set(null, 'Your password has been changed and every session of yours has ended. Sign in with the new password.');
}

export async function actAs(clubId) {
  set(await appCall('/app/acting-as', { method: 'POST', json: { club_id: clubId } }));
}

/** Headers that authenticate a v2 call (also for XMLHttpRequest uploads). */
export const bearer = () => ({ Authorization: 'Bearer ' + (current ? current.api_token : '') });

/**
 * A call to the public v2 API (`data` of the answer, or the whole body with `whole`). An
 * api_token that has expired while the session lives is renewed once through GET /app/session.
 */
export async function api(path, { method = 'GET', json, whole = false } = {}, renewed = false) {
  const headers = bearer();
  if (json !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
  if (response.status === 401 && !renewed && current) {
    if (await restore()) return api(path, { method, json, whole }, true);
  }
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return null;
  const body = await response.json();
  return whole ? body : body.data;
}
