#!/usr/bin/env node
// The operator command line. The TypeScript sources are compiled to dist/ by `npm ci` (prepare).
import { main } from '../dist/lib/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
