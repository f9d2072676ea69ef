import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root, found by walking up from this module. The same code runs from
 * lib/ (tsx, tests) and from dist/lib/ (compiled), so relative paths would differ.
 */
function findProjectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('logbook: cannot find the package root (no package.json above lib/)');
    dir = parent;
  }
  return dir;
}

export const projectRoot = findProjectRoot();

/** Absolute path of a file shipped in the project's data/ folder. */
export function dataPath(name: string): string {
  return join(projectRoot, 'data', name);
}

/** Absolute path of a file in the project's sql/ folder. */
export function sqlPath(name = ''): string {
  return join(projectRoot, 'sql', name);
}
