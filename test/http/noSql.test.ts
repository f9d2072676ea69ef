import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from '../../lib/paths.js';

/**
 * SQL and repositories live below lib/http, never in it (docs/architecture.md): the HTTP layer
 * parses and answers, the domain modules (lib/qso, lib/accounts, lib/contests, …) hold the
 * statements. This scans every source file of lib/http, comments left out, for the start of a
 * statement.
 */

const root = join(projectRoot, 'lib', 'http');

const STATEMENT = /\b(SELECT\s+[\w*(]|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|COPY\s*\(|COPY\s+\w+\s+(FROM|TO)|WITH\s+\w+\s+AS\s*(MATERIALIZED\s*)?\()/;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The code of a file without its comments (a `//` inside a string such as a URL is kept only up to it: enough here). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function statementsIn(text: string): string[] {
  return withoutComments(text)
    .split('\n')
    .filter((line) => STATEMENT.test(line))
    .map((line) => line.trim());
}

t.test('the scan finds a statement, and not one written in a comment', async (t) => {
  t.same(statementsIn("const { rows } = await db.query('SELECT id FROM stations WHERE user_id = $1', [id]);"), [
    "const { rows } = await db.query('SELECT id FROM stations WHERE user_id = $1', [id]);",
  ]);
  t.equal(statementsIn('`DELETE FROM qso WHERE id = $1`').length, 1);
  t.equal(statementsIn("client.query('UPDATE stations SET active = false')").length, 1);
  t.equal(statementsIn("'INSERT INTO logbook_stations (logbook_id) VALUES ($1)'").length, 1);
  t.same(statementsIn('/** the page is a `COPY (SELECT …) TO STDOUT` */\n// SELECT 1 FROM qso'), []);
});

t.test('no source file of lib/http holds SQL', async (t) => {
  const files = tsFiles(root);
  t.ok(files.length > 50, `${files.length} files scanned`);
  const found = files.flatMap((file) => statementsIn(readFileSync(file, 'utf8')).map((line) => `${relative(root, file)}: ${line}`));
  t.same(found, [], 'SQL belongs below lib/http (lib/qso, lib/accounts, lib/contests, lib/db, …)');
});
