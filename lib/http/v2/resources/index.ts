import type { ResourceDefinition } from '../resource.js';
import { catalogResource } from './catalog/index.js';
import { clubResource } from './club/index.js';
import { confirmationResource } from './confirmation/index.js';
import { stationResource } from './station/index.js';
import { logbookResource } from './logbook/index.js';
import { qsoResource } from './qso/index.js';
import { radioResource } from './radio/index.js';
import { statisticResource } from './statistic/index.js';
import { tokenResource } from './token/index.js';
import { contestResource } from './contest/index.js';
import { lookupResource } from './lookup/index.js';

/** Every v2 resource the server dispatches, in documentation order. */
export const v2Resources: ResourceDefinition[] = [stationResource, confirmationResource, logbookResource, qsoResource, radioResource, statisticResource, tokenResource, catalogResource, clubResource, contestResource, lookupResource];
