import { envelopeTimestamp } from '../../../envelope.js';
import type { ResourceDefinition } from '../../resource.js';

/** Metadata of the token the request carries ("who am I"); never its value or hash. */
export const tokenResource: ResourceDefinition = {
  name: 'token',
  description: 'Metadata of the current token',
  scoped: false,
  list: {
    summary: 'The current token: id, name, owner, scopes and expiry',
    response: {
      type: 'object',
      required: ['id', 'name', 'owner', 'user_id', 'scopes', 'expires_at'],
      properties: {
        id: { type: 'integer' },
        name: { type: 'string' },
        owner: { type: 'string', description: "the owner's callsign (the clubstation's for club tokens)" },
        user_id: { type: 'integer', description: 'the owner' },
        scopes: { type: 'array', items: { type: 'string' } },
        expires_at: { type: ['string', 'null'], description: 'YYYY-MM-DDTHH:MM:SS+00:00, null when it never expires' },
      },
    },
    handler: async ({ principal }) => ({
      data: {
        id: principal.tokenId,
        name: principal.tokenName,
        owner: principal.ownerCallsign,
        user_id: principal.userId,
        scopes: [...principal.scopes],
        expires_at: principal.expiresAt ? envelopeTimestamp(principal.expiresAt) : null,
      },
    }),
  },
};
