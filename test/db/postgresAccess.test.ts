import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { letPostgresReach, ownTempFolder } from '../../lib/db/postgresAccess.js';

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

t.test('the temporary folder a checkout was made in may be opened: ownTempFolder', async (t) => {
  const tempRoot = mkdtempSync(join(tmpdir(), 'pg-temp-root-'));
  t.teardown(() => rmSync(tempRoot, { recursive: true, force: true }));
  chmodSync(tempRoot, 0o755);
  const checkout = join(tempRoot, 'tmp.abc123');
  const project = join(checkout, 'src', 'logbook');
  mkdirSync(project, { recursive: true });
  chmodSync(checkout, 0o700);

  t.equal(await ownTempFolder(project, tempRoot), checkout, 'the folder directly inside the temporary folder');
  t.equal(await ownTempFolder(checkout, tempRoot), checkout, 'a checkout made straight into it');
  t.equal(await ownTempFolder(tempRoot, tempRoot), null, 'never the temporary folder itself');
  t.equal(await ownTempFolder('/usr/lib', tempRoot), null, 'nothing outside it');

  t.same(await letPostgresReach([project], [project, checkout]), [checkout], 'opened with it among the folders that may be');
  t.equal(mode(checkout), 0o701);

  if (process.getuid?.() !== 0) return;
  const other = join(tempRoot, 'someone-else');
  mkdirSync(join(other, 'logbook'), { recursive: true });
  chownSync(other, 65534, 65534);
  t.equal(await ownTempFolder(join(other, 'logbook'), tempRoot), null, "another user's folder is not ours to open");
});
