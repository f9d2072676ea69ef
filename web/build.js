// Bundles the browser app (web/src) into dist/web with esbuild: run by `npm run build` and by
// `npm ci` (prepare). Every module comes from npm through this bundle; nothing from a CDN.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'web');
mkdirSync(out, { recursive: true });

await build({
  // The public log's page (web/public.html) has its own bundle: no sign-in code, its CSS beside it.
  entryPoints: { app: join(here, 'src', 'main.js'), style: join(here, 'src', 'app.css'), public: join(here, 'src', 'public', 'main.js') },
  outdir: out,
  bundle: true,
  minify: true,
  sourcemap: true,
  format: 'esm',
  target: ['chrome110', 'firefox110', 'safari16'],
  legalComments: 'linked',
  logLevel: 'warning',
});
// The world's outlines for the maps (statistics, public log), fetched by those pages only.
copyFileSync(createRequire(import.meta.url).resolve('world-atlas/countries-110m.json'), join(out, 'countries-110m.json'));
