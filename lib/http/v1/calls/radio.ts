import type { V1Call } from '../call.js';
import { failed } from '../call.js';
import { sendJson } from '../answer.js';
import { requireWriteKey } from '../keyAuth.js';
import { isSet } from '../values.js';
import { readRadioInput, type RadioColumn } from '../../../radios/radioInput.js';
import { upsertRadio } from '../../../radios/radioStore.js';
import { publishRadioUpdate } from '../../../radios/radioEvents.js';
import { isBlank } from '../../../input/jsonValues.js';

/** Everything a v1 client may report: basic, extended and satellite state, and the callback URL. */
const V1_COLUMNS: readonly RadioColumn[] = [
  'frequency', 'frequency_rx', 'mode', 'mode_rx', 'power', 'prop_mode', 'sat_name', 'sat_mode',
  'uplink_freq', 'downlink_freq', 'uplink_mode', 'downlink_mode', 'cat_url',
];

/** Where a member the body lacks is taken from, as the original's CAT model does it. */
const FALLBACKS: ReadonlyArray<readonly [RadioColumn, string]> = [
  // Satellite programs (SatPC32) report up/downlink instead of TX/RX.
  ['frequency', 'uplink_freq'],
  ['frequency_rx', 'downlink_freq'],
  ['mode', 'uplink_mode'],
  ['mode_rx', 'downlink_mode'],
  // Spellings of the original's documentation example.
  ['sat_name', 'satname'],
  ['sat_mode', 'satmode'],
];

/** The body with the original's fallbacks applied; a satellite name without prop_mode means SAT. */
function withFallbacks(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const state: Record<string, unknown> = { ...body };
  for (const [column, source] of FALLBACKS) {
    if (isBlank(state[column]) && !isBlank(state[source])) state[column] = state[source];
  }
  if (!('prop_mode' in state) && typeof state.sat_name === 'string' && state.sat_name.trim() !== '') state.prop_mode = 'SAT';
  return state;
}

/**
 * `api/radio`: a rig-control client reports a radio's state. Stored through the radio store the
 * v2 radio resource uses and published to the live-update worker the same way. Members the body
 * omits keep their stored value (updates are partial); the client's `timestamp` is ignored,
 * the server's time is stored.
 */
export const radioCall: V1Call = {
  name: 'radio',
  wrongJson: { status: 400, body: { status: 'failed', reason: 'wrong JSON' } },
  requireObject: true,
  async handle(request) {
    const { services } = request;
    const key = await requireWriteKey(request, () => failed(401, 'missing api key'), () => failed(403, 'API key does not have write permissions'));
    if (!isSet(request.body, 'radio')) throw failed(404, 'missing radio element in payload');
    const input = readRadioInput(withFallbacks(request.body), V1_COLUMNS);
    if (input.radio === null && !input.invalid.includes('radio')) input.invalid.unshift('radio');
    if (input.invalid.length) throw failed(400, `invalid field(s): ${input.invalid.join(', ')}`);
    const write = await upsertRadio(services.db, { userId: key.userId, operatorId: key.createdBy }, input.radio!, input.values);
    publishRadioUpdate(services.events, key.userId, write);
    sendJson(request.ctx, 200, { status: 'success' });
  },
};
