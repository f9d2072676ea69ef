import t from 'tap';
import { readFile } from 'node:fs/promises';
import { testDatabase } from '../helpers/db.js';
import { schemaText } from '../../lib/db/schemaText.js';
import { sqlPath } from '../../lib/paths.js';

t.test('sql/schema.sql is the schema the migrations build', async (t) => {
  const db = await testDatabase(t);
  const generated = await schemaText(db.pool);
  const file = await readFile(sqlPath('schema.sql'), 'utf8').catch(() => '');
  if (generated !== file) {
    const [a, b] = [generated.split('\n'), file.split('\n')];
    const at = a.findIndex((line, i) => line !== b[i]);
    t.comment(`first difference at line ${at + 1}:\n  migrations: ${a[at]}\n  schema.sql: ${b[at] ?? '(end of file)'}`);
  }
  t.ok(generated === file, 'sql/schema.sql differs from the migrated schema: run npm run schema');
  t.match(file, /CREATE OR REPLACE FUNCTION public\.qso_counts_record\(\)/, 'the counting trigger in force is written there');
});
