import { validationError } from '../../../errors.js';
import { parseDateParam, parseKeyList, parseStationIds, present } from '../../params.js';
import type { ResourceDefinition } from '../../resource.js';
import { qsoScope } from '../../../../qso/scope.js';
import { CONFIRMATION_KEYS } from '../../../../qso/confirmationTypes.js';
import { qsoStatistics } from '../../../../statistics/qsoStatistics.js';
import { confirmationStatistics, type ConfirmationFilters } from '../../../../statistics/confirmationStatistics.js';
import { systemStatistics } from '../../../../statistics/systemStatistics.js';
import { dxccByBand } from '../../../../statistics/dxccByBand.js';
import { dxccWorked } from '../../../../statistics/dxccWorked.js';

const PROFILES = ['qso', 'confirmations', 'dxcc'] as const;
/** Instance-wide numbers: for instance administrators only. */
const ADMIN_PROFILES = [...PROFILES, 'system', 'full'] as const;
type Profile = (typeof ADMIN_PROFILES)[number];

function parseProfile(query: Record<string, string>, isAdmin: boolean): Profile {
  const profile = present(query.profile) ? query.profile.trim().toLowerCase() : 'qso';
  const allowed: readonly string[] = isAdmin ? ADMIN_PROFILES : PROFILES;
  if (!allowed.includes(profile)) throw validationError(`Unknown profile "${profile}"`, { field: 'profile', allowed });
  return profile as Profile;
}

function parseConfirmationFilters(query: Record<string, string>): ConfirmationFilters {
  return {
    types: parseKeyList(query, 'type', CONFIRMATION_KEYS) ?? CONFIRMATION_KEYS,
    since: parseDateParam(query, 'since'),
    qsoSince: parseDateParam(query, 'qso_since'),
    qsoUntil: parseDateParam(query, 'qso_until'),
    band: present(query.band) ? query.band.trim() : null,
    mode: present(query.mode) ? query.mode.trim() : null,
  };
}

const param = (description: string) => ({ type: 'string', description });

/** Read-only numbers about the owner's log (and, for administrators, the instance). */
export const statisticResource: ResourceDefinition = {
  name: 'statistic',
  description: 'QSO and confirmation statistics computed by the database',
  scoped: true,
  list: {
    summary: 'Statistics of one profile: qso (default), confirmations, dxcc; system and full for administrators',
    query: {
      type: 'object',
      properties: {
        profile: param('qso (default) | confirmations | dxcc (entities per band, and each entity worked) | system | full (the last two for instance administrators)'),
        station_id: param('comma-separated station location ids (default: all of the owner\'s)'),
        type: param('confirmations: comma list of lotw, eqsl, qsl, qrz, clublog (default all)'),
        since: param('confirmations: received on or after YYYY-MM-DD'),
        qso_since: param('confirmations: QSOs on or after YYYY-MM-DD'),
        qso_until: param('confirmations: QSOs on or before YYYY-MM-DD'),
        band: param('confirmations: band or SAT'),
        mode: param('confirmations: mode or submode'),
      },
    },
    handler: async ({ query, principal, services }) => {
      const profile = parseProfile(query, principal.isAdmin);
      const scope = qsoScope(principal, parseStationIds(principal, query));
      const data: Record<string, unknown> = {};
      if (profile === 'qso' || profile === 'full') data.qso = await qsoStatistics(services.pageDb, scope);
      if (profile === 'confirmations' || profile === 'full') {
        const filters = parseConfirmationFilters(query);
        const stats = await confirmationStatistics(services.pageDb, scope, filters);
        data.confirmations = {
          ...stats,
          filters: {
            type: filters.types, since: filters.since, qso_since: filters.qsoSince, qso_until: filters.qsoUntil,
            band: filters.band, mode: filters.mode,
          },
        };
      }
      if (profile === 'dxcc') {
        data.dxcc_by_band = await dxccByBand(services.pageDb, scope);
        data.dxcc_entities = await dxccWorked(services.pageDb, scope);
      }
      if (profile === 'system' || profile === 'full') {
        data.system = await systemStatistics(services.db, services.version, Boolean(services.config.worker.url));
      }
      return { data, meta: { profile, admin: principal.isAdmin } };
    },
  },
};
