/**
 * The live-update worker: public entry points. This module loads the native
 * uWebSockets.js server; the application creates browser tokens through
 * ./browserToken.js directly so that it never loads the server.
 */
export { startWorker, type RunningWorker } from './server.js';
export { MIN_SECRET_LENGTH, resolveWorkerOptions, type WorkerOptions } from './options.js';
export { createBrowserToken, verifyBrowserToken, type BrowserTokenClaims, type TokenCheck, type TokenKey } from './browserToken.js';
export { STATUS_TOPIC } from './status.js';
export { browserTokenKey, internalCallKey } from './workerKeys.js';
export { runWorker, workerOptionsFromCli, type WorkerCliSources, type WorkerConfigSection } from './cli.js';
