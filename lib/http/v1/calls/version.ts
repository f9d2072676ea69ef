import type { V1Call } from '../call.js';
import { failed } from '../call.js';
import { sendJson } from '../answer.js';
import { requireKey } from '../keyAuth.js';

/** `api/version`: the application version for any valid key (read-only suffices). */
export const versionCall: V1Call = {
  name: 'version',
  async handle(request) {
    await requireKey(request, failed(401, 'missing or invalid api key'));
    sendJson(request.ctx, 200, { status: 'ok', version: request.services.version });
  },
};
