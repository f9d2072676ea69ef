import type { V1Call } from '../call.js';
import { authCall, checkAuthCall } from './auth.js';
import { versionCall } from './version.js';
import { stationInfoCall } from './stationInfo.js';
import { statisticsCall } from './statistics.js';
import { checkCallsignCall, checkGridCall } from './logbookChecks.js';
import { createStationCall } from './createStation.js';
import { listClubMembersCall } from './clubMembers.js';
import { wpStatsCall } from './wpStats.js';
import { qsoCall } from './qso.js';
import { contactsExportCall } from './contactsExport.js';
import { radioCall } from './radio.js';
import { privateLookupCall } from './privateLookup.js';

/** Every v1 call the router answers. */
export const v1Calls: readonly V1Call[] = [
  authCall,
  checkAuthCall,
  versionCall,
  stationInfoCall,
  statisticsCall,
  checkCallsignCall,
  checkGridCall,
  createStationCall,
  listClubMembersCall,
  wpStatsCall,
  qsoCall,
  contactsExportCall,
  radioCall,
  privateLookupCall,
];
