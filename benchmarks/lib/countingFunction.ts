import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The counting trigger's function (qso_counts_record) as each migration defined it, so that a
 * benchmark can put an earlier definition back and time it against the one in force.
 */

const sqlDir = join(import.meta.dirname, '..', '..', 'sql');
const DEFINITION = 'FUNCTION qso_counts_record() RETURNS trigger';

/** `CREATE OR REPLACE` of the counting function as `migration` defines it (its last definition there). */
export function countingFunctionSql(migration: string): string {
  const text = readFileSync(join(sqlDir, migration), 'utf8');
  const start = text.lastIndexOf(DEFINITION);
  return `CREATE OR REPLACE ${text.slice(start, text.indexOf('$$;', start) + 3)}`;
}
