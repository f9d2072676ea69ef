import type { V1Call } from '../call.js';
import { failed } from '../call.js';
import { sendJson } from '../answer.js';
import { requireKey } from '../keyAuth.js';
import { wavelogApiVersion } from '../../../version.js';

/**
 * `api/version`: for any valid key (read-only suffices), the Wavelog version whose API we
 * implement, not our own: clients choose request shapes by it. Ours is in v2 `status`.
 */
export const versionCall: V1Call = {
  name: 'version',
  async handle(request) {
    await requireKey(request, () => failed(401, 'missing or invalid api key'));
    sendJson(request.ctx, 200, { status: 'ok', version: wavelogApiVersion });
  },
};
