import { join } from 'node:path';
import { projectRoot } from '../../lib/paths.js';

/** The operator command line, found from the package root: tests run compiled from dist/test/. */
export const logbookBin = join(projectRoot, 'bin', 'logbook.js');
