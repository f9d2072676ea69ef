import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './paths.js';

/** The package version, reported by status, `logbook --version`, the ADIF header and the OpenAPI document. */
export const appVersion: string = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * The Wavelog release whose API this server implements, answered by v1 `api/version`: clients
 * branch on it to pick request shapes. SPEC.md describes the interface as of 3.1.0 (v2 "exists
 * from application version 3.1.0 onward"; every v1 feature it dates is older).
 */
export const wavelogApiVersion = '3.1.0';
