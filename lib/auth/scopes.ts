/** The v2 scopes (SPEC.md "Authentication" 5): `<resource>:<action>`. */
export const SCOPES = [
  'qso:read', 'qso:write', 'qso:delete',
  'station:read', 'station:write', 'station:delete',
  'logbook:read', 'logbook:write', 'logbook:delete',
  'radio:read', 'radio:write', 'radio:delete',
  'statistic:read',
  'confirmation:read',
  'contest:read', 'contest:write', 'contest:delete',
  'lookup:read',
  'club:read', 'club:write', 'club:delete',
] as const;

export type Scope = (typeof SCOPES)[number];

const known = new Set<string>(SCOPES);

export function isScope(value: string): value is Scope {
  return known.has(value);
}

/** Parses `a:b,c:d`; unknown scopes are an error naming them. */
export function parseScopes(list: string): Scope[] {
  const scopes = [...new Set(list.split(',').map((s) => s.trim()).filter(Boolean))];
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) throw new Error(`unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  if (!scopes.length) throw new Error('at least one scope is required');
  return scopes as Scope[];
}

/** GET needs `:read`, DELETE `:delete`, POST and PATCH `:write` (SPEC.md convention 6). */
export function scopeFor(resource: string, method: string): string {
  const action = method === 'GET' ? 'read' : method === 'DELETE' ? 'delete' : 'write';
  return `${resource}:${action}`;
}
