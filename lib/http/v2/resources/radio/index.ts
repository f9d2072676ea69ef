import { notFound, validationError } from '../../../errors.js';
import { created } from '../../created.js';
import { OFFICER_LEVEL, type Principal } from '../../principal.js';
import type { JsonSchema, ResourceDefinition } from '../../resource.js';
import { readRadioInput, type RadioColumn } from '../../../../radios/radioInput.js';
import { deleteRadio, findRadio, listRadios, upsertRadio, type RadioVisibility } from '../../../../radios/radioStore.js';
import { publishRadioUpdate } from '../../../../radios/radioEvents.js';

/** The radio state a v2 client sets; the satellite up/downlink and callback members are v1's. */
const WRITABLE: readonly RadioColumn[] = ['frequency', 'frequency_rx', 'mode', 'mode_rx', 'power', 'prop_mode', 'sat_name'];

/** Club members below officer see and delete only the radios they operate. */
function visibility(principal: Principal): RadioVisibility {
  const restricted = principal.club !== null && principal.club.level < OFFICER_LEVEL;
  return { userId: principal.userId, operatorId: restricted ? principal.actingUserId : null };
}

// Members are checked by readRadioInput, so that every broken limit lands in details.invalid.
const hz = { description: 'integer Hz (number or string of digits)' };
const mode = { description: 'at most 10 characters; "" or "non" means none' };

const radioSchema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    radio: { type: 'string' },
    frequency: { type: ['integer', 'null'] },
    frequency_rx: { type: ['integer', 'null'] },
    mode: { type: ['string', 'null'] },
    mode_rx: { type: ['string', 'null'] },
    power: { type: ['integer', 'null'] },
    prop_mode: { type: ['string', 'null'] },
    sat_name: { type: ['string', 'null'] },
    updated_at: { type: 'string' },
  },
};

/** Radio (CAT) state: upserted by radio name, never patched. */
export const radioResource: ResourceDefinition = {
  name: 'radio',
  description: 'Radio (CAT) state reported by rig-control clients',
  scoped: true,
  list: {
    summary: 'All radios (not paginated)',
    response: { type: 'array', items: radioSchema },
    handler: async ({ principal, services }) => {
      const radios = await listRadios(services.db, visibility(principal));
      return { data: radios, meta: { count: radios.length } };
    },
  },
  show: {
    summary: 'One radio',
    response: radioSchema,
    handler: async ({ id, principal, services }) => {
      const radio = await findRadio(services.db, visibility(principal), Number(id));
      if (!radio) throw notFound('Radio not found');
      return { data: radio };
    },
  },
  create: {
    summary: 'Report a radio\'s state: 201 for a new radio name, 200 for an update of a known one',
    body: {
      type: 'object',
      additionalProperties: false,
      properties: {
        radio: { description: 'required, at most 250 characters' },
        frequency: hz,
        frequency_rx: hz,
        mode,
        mode_rx: mode,
        power: { description: 'integer W' },
        prop_mode: { description: 'at most 255 characters' },
        sat_name: { description: 'at most 255 characters' },
        cat_url: { description: 'not writable through this API (400)' },
      },
    },
    response: radioSchema,
    handler: async ({ ctx, body, principal, services }) => {
      const input = readRadioInput(body, WRITABLE);
      if ('cat_url' in body) input.invalid.push('cat_url');
      if (input.radio === null && !input.invalid.includes('radio')) {
        throw validationError('Missing required field(s): radio', { missing: ['radio'] });
      }
      if (input.invalid.length) throw validationError(`Invalid field(s): ${input.invalid.join(', ')}`, { invalid: input.invalid });
      const write = await upsertRadio(services.db, { userId: principal.userId, operatorId: principal.actingUserId }, input.radio!, input.values);
      publishRadioUpdate(services.events, principal.userId, write);
      return write.created ? created(ctx, write.status.id, write.status) : { data: write.status };
    },
  },
  remove: {
    summary: 'Forget a radio',
    handler: async ({ ctx, id, principal, services }) => {
      if (!(await deleteRadio(services.db, visibility(principal), Number(id)))) throw notFound('Radio not found');
      ctx.status = 204;
      return undefined;
    },
  },
};
