import type { ResourceDefinition } from '../resource.js';

/** Every v2 resource the server dispatches, in documentation order. */
export const v2Resources: ResourceDefinition[] = [];
