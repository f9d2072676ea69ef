import Koa from 'koa';
import Router from '@koa/router';
import type { Services } from '../services.js';
import { compress } from './middleware/compress.js';
import { cors } from './middleware/cors.js';
import { connectionErrorLogger, errorHandler } from './middleware/errorHandler.js';
import { abandonOnDisconnect } from './middleware/abandon.js';
import { dropSlowClients } from './middleware/stalledClient.js';
import { requestLog } from './middleware/requestLog.js';
import { notFound } from './errors.js';
import { openApiDocument } from './openapi.js';
import { webAppManifest } from './manifest.js';
import { v2Dispatcher } from './v2/dispatcher.js';
import { v2Resources } from './v2/resources/index.js';
import type { ResourceDefinition } from './v2/resource.js';
import { v1Router } from './v1/router.js';
import { liveRouter } from './live/router.js';
import { publicLogRouter } from './public/router.js';
import { webAppRouter } from './webApp/router.js';
import { appRouter } from './app/router.js';
import { trustedProxies } from './clientAddress.js';

export interface AppOptions {
  resources?: ResourceDefinition[];
}

/** The Koa application: logging → CORS → stalled and slow clients dropped → errors → gzip → query scope (abandoned requests stop) → v2 space → openapi/manifest/metrics → v1 → live page → the app's session endpoints → browser app → 404. */
export function createApp(services: Services, options: AppOptions = {}): Koa {
  const resources = options.resources ?? v2Resources;
  const app = new Koa();
  app.proxy = trustedProxies(services.config.trust_proxy) > 0;
  app.maxIpsCount = trustedProxies(services.config.trust_proxy);
  app.use(requestLog(services.logger, services.metrics));
  app.use(cors);
  app.use(dropSlowClients({
    stallTimeoutMs: services.config.response_stall_timeout_ms,
    minBytesPerSecond: services.config.response_min_bytes_per_second,
    windowMs: services.config.response_min_rate_window_ms,
  }, services.logger));
  app.use(errorHandler(services.logger));
  app.use(compress);
  app.on('error', connectionErrorLogger(services.logger));
  app.use(abandonOnDisconnect(services));
  app.use(v2Dispatcher(resources, services));

  const router = new Router();
  router.get('/openapi.json', (ctx) => {
    ctx.state.resource = 'openapi';
    ctx.body = openApiDocument(resources, services.version);
  });
  router.get('/manifest.json', (ctx) => {
    ctx.state.resource = 'manifest';
    ctx.body = webAppManifest;
  });
  if (services.config.metrics.enabled) {
    router.get(services.config.metrics.path, (ctx) => {
      ctx.state.resource = 'metrics';
      ctx.type = 'text/plain; version=0.0.4';
      ctx.body = services.metrics.render();
    });
  }
  app.use(router.routes());
  app.use(v1Router(services).routes());
  app.use(liveRouter(services).routes());
  app.use(publicLogRouter(services).routes());
  app.use(appRouter(services).routes());
  app.use(webAppRouter().routes());
  app.use(async (ctx) => {
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    throw notFound(`No route for ${ctx.method} ${ctx.path}`);
  });
  return app;
}
