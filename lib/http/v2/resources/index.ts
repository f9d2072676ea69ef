import type { ResourceDefinition } from '../resource.js';
import { qsoResource } from './qso/index.js';
import { stationResource } from './station/index.js';
import { logbookResource } from './logbook/index.js';
import { radioResource } from './radio/index.js';
import { statisticResource } from './statistic/index.js';
import { confirmationResource } from './confirmation/index.js';
import { contestResource } from './contest/index.js';
import { lookupResource } from './lookup/index.js';
import { clubResource } from './club/index.js';
import { catalogResource } from './catalog/index.js';
import { tokenResource } from './token/index.js';
import { importResource } from './import/index.js';

/** Every v2 resource the server dispatches, in the order SPEC.md lists the segments (and the OpenAPI document shows them). */
export const v2Resources: ResourceDefinition[] = [
  qsoResource,
  stationResource,
  logbookResource,
  radioResource,
  statisticResource,
  confirmationResource,
  contestResource,
  lookupResource,
  clubResource,
  catalogResource,
  tokenResource,
  importResource,
];
