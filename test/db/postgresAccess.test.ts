import { mkdirSync, mkdtempSync, rmSync, statSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { letPostgresReach } from '../../lib/db/postgresAccess.js';

const mode = (path: string): number => statSync(path).mode & 0o777;

t.test('folders inside the project that others cannot enter are opened for entering only', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'pg-access-'));
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  chmodSync(base, 0o755);
  const project = join(base, 'clone');
  const bin = join(project, 'node_modules', 'pkg', 'bin');
  mkdirSync(bin, { recursive: true });
  chmodSync(project, 0o700);
  chmodSync(join(project, 'node_modules'), 0o750);

  t.same(await letPostgresReach([bin], [project]), [join(project, 'node_modules'), project]);
  t.equal(mode(project), 0o701, 'execute for others, no listing');
  t.equal(mode(join(project, 'node_modules')), 0o751);
  t.same(await letPostgresReach([bin], [project]), [], 'nothing left to open the second time');
});

t.test('a closed folder outside the project stops start-up with the folder named', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'pg-access-'));
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  const project = join(base, 'clone');
  mkdirSync(project);
  chmodSync(base, 0o700);
  await t.rejects(letPostgresReach([project], [project]), new RegExp(`cannot enter ${base} \\(mode 700\\): allow it \\(chmod o\\+x ${base}\\)`));
  t.equal(mode(base), 0o700, 'left as it was');
});
