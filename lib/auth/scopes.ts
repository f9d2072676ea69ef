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

const RESOURCE_WORDS: Record<string, string> = {
  qso: 'QSOs', station: 'station locations', logbook: 'logbooks', radio: 'radios (CAT state)', statistic: 'statistics',
  confirmation: 'confirmations (LoTW, eQSL, QSL cards, QRZ, Club Log)', contest: 'contest sessions', lookup: 'callsign look-ups',
  club: 'club members and their levels',
};
const ACTION_WORDS: Record<string, string> = { read: 'Read', write: 'Create and change', delete: 'Delete' };

/** A sentence for a scope, as the app offers it: "Read QSOs". */
export function scopeDescription(scope: Scope): string {
  const [resource, action] = scope.split(':') as [string, string];
  return `${ACTION_WORDS[action]} ${RESOURCE_WORDS[resource]}`;
}

/** Scopes a member below officer level is not given on a club's token (REFERENCE "Tokens": UI presets). */
const OFFICER_ONLY = (scope: Scope) => scope.startsWith('club:') || scope.startsWith('logbook:');

/**
 * The scopes a user may put on a token: on their own, every scope but the club ones, which only
 * administrators can use there; on a club's (`clubLevel` set), every scope for an officer, and
 * none of the club or logbook scopes below officer level.
 */
export function grantableScopes(isAdmin: boolean, clubLevel: number | null, officerLevel: number): Scope[] {
  if (clubLevel === null) return SCOPES.filter((scope) => isAdmin || !scope.startsWith('club:'));
  return clubLevel >= officerLevel ? [...SCOPES] : SCOPES.filter((scope) => !OFFICER_ONLY(scope));
}

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
