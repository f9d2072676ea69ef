/**
 * The one sentence a command answers when PostgreSQL refuses a row for a constraint the operator
 * can act on (an id that names nothing, a name already taken), instead of the server's text,
 * which names constraints the operator never sees. Anything else is left as it is (null).
 */
const NOUNS: Record<string, string> = { users: 'user', stations: 'location' };

const MISSING = /^Key \((\w+)\)=\((.*)\) is not present in table "(\w+)"\.$/;
const TAKEN = /^Key \((\w+)\)=\((.*)\) already exists\.$/;

export function constraintSentence(error: unknown): string | null {
  const { code, detail } = error as { code?: unknown; detail?: unknown };
  if (typeof detail !== 'string') return null;
  const missing = code === '23503' ? MISSING.exec(detail) : null;
  if (missing) return `no ${NOUNS[missing[3]!] ?? missing[3]} with id ${missing[2]}`;
  const taken = code === '23505' ? TAKEN.exec(detail) : null;
  if (taken) return `${taken[1]} ${taken[2]} is taken`;
  return null;
}
