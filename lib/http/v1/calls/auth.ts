import type { V1Call } from '../call.js';
import { failed } from '../call.js';
import { sendJson, sendXml } from '../answer.js';
import { authorizeKey, requireKey } from '../keyAuth.js';

/** `api/auth/{key}`: the original's XML check, always 200. */
export const authCall: V1Call = {
  name: 'auth',
  keyInPath: true,
  async handle(request) {
    const key = await authorizeKey(request);
    sendXml(
      request.ctx,
      key
        ? `<auth><status>Valid</status><rights>${key.rights}</rights></auth>`
        : '<auth><message>Key Invalid - either not found or disabled</message></auth>',
    );
  },
};

/** `api/check_auth/{key}`: the JSON twin of `auth`, 401 for a bad key. */
export const checkAuthCall: V1Call = {
  name: 'check_auth',
  keyInPath: true,
  async handle(request) {
    const key = await requireKey(request, () => failed(401, 'missing or invalid api key'));
    sendJson(request.ctx, 200, { status: 'valid', rights: key.rights });
  },
};
