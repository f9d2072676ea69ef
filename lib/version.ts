import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './paths.js';

/** The package version, reported by status, api/version and the OpenAPI document. */
export const appVersion: string = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
