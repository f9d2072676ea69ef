import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { projectRoot } from '../../paths.js';
import { notFound } from '../errors.js';

/**
 * The browser app at `/` (web/index.html and the bundle `npm run build` makes of web/src in
 * dist/web; the public log's page, web/public.html, is served by lib/http/public) and the API page at `/api-docs` (Swagger UI from the npm package swagger-ui-dist).
 * Everything is served from here under /assets/, nothing from a CDN (/app/ is the session
 * endpoints'); every page carries a Content-Security-Policy that allows only this origin's scripts
 * and styles (plus the worker's WebSocket) and forbids framing.
 */

export const APP_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self' ws: wss:",
  "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'", "object-src 'none'",
].join('; ');
/** Swagger UI sets style attributes from script: inline styles are needed there, inline scripts are not. */
const API_CSP = APP_CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");

const WEB = join(projectRoot, 'web');
const BUNDLE = join(projectRoot, 'dist', 'web');
/** Files of the bundle (dist/web) and of web/ itself, by name: nothing else is served. */
const OWN_FILES: Record<string, { folder: string; type: string }> = {
  'app.js': { folder: BUNDLE, type: 'js' },
  'app.js.map': { folder: BUNDLE, type: 'json' },
  'style.css': { folder: BUNDLE, type: 'css' },
  'countries-110m.json': { folder: BUNDLE, type: 'json' },
  'public.js': { folder: BUNDLE, type: 'js' },
  'public.js.map': { folder: BUNDLE, type: 'json' },
  'public.css': { folder: BUNDLE, type: 'css' },
  'api.js': { folder: WEB, type: 'js' },
  'favicon.svg': { folder: WEB, type: 'svg' },
};
const VIEWER_FILES: Record<string, string> = { 'swagger-ui-bundle.js': 'js', 'swagger-ui.css': 'css' };

/** The folder of swagger-ui-dist, or null when the package is not installed. */
function viewerFolder(): string | null {
  try {
    return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  } catch {
    return null;
  }
}

const BUNDLE_MISSING = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Logbook</title></head><body>
<p>The browser app is not built here: run <code>npm ci</code> (or <code>npm run build</code>), which bundles web/src into dist/web.
The API works without it; its description is at <a href="/api-docs">/api-docs</a>.</p></body></html>`;

const VIEWER_MISSING = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Logbook · API</title></head><body>
<p>The API viewer (npm package swagger-ui-dist) is not installed here: run <code>npm ci</code>.
The OpenAPI document itself is at <a href="/openapi.json">/openapi.json</a>.</p></body></html>`;

export function securityHeaders(ctx: Context, csp: string): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
}

export function webAppRouter(): Router {
  const router = new Router();
  const page = (name: string) => readFileSync(join(WEB, name), 'utf8');
  const index = page('index.html');
  const apiPage = page('api.html');
  const viewer = viewerFolder();

  router.get('/', (ctx) => {
    securityHeaders(ctx, APP_CSP);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'html';
    ctx.body = existsSync(join(BUNDLE, 'app.js')) ? index : BUNDLE_MISSING;
  });

  router.get('/api-docs', (ctx) => {
    securityHeaders(ctx, API_CSP);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'html';
    ctx.body = viewer ? apiPage : VIEWER_MISSING;
  });

  router.get('/assets/:file', (ctx) => {
    const file = OWN_FILES[ctx.params.file!];
    const path = file ? join(file.folder, ctx.params.file!) : null;
    if (!path || !existsSync(path)) throw notFound('No such file');
    securityHeaders(ctx, APP_CSP);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = file!.type;
    ctx.body = createReadStream(path);
  });

  router.get('/assets/vendor/:file', (ctx) => {
    const type = VIEWER_FILES[ctx.params.file!];
    const path = viewer && type ? join(viewer, ctx.params.file!) : null;
    if (!path || !existsSync(path)) throw notFound('No such file');
    securityHeaders(ctx, API_CSP);
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = type!;
    ctx.body = createReadStream(path);
  });

  return router;
}
