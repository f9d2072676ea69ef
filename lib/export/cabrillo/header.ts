import { appVersion } from '../../version.js';
import { CATEGORY_MODE_OF, cabrilloContestName, categoryBandOf, type CabrilloMode } from './names.js';
import type { CabrilloOptions } from './options.js';
import type { CabrilloSession } from './sessionRows.js';

/** What the first pass found in the log, for the header's defaults. */
export interface LogSurvey {
  bands: Set<string>;
  modes: Set<CabrilloMode>;
  /** Distinct OPERATOR values, at most MAX_OPERATORS of them. */
  operators: Set<string>;
}

export const MAX_OPERATORS = 50;

function defaultBand(survey: LogSurvey): string {
  const [only] = survey.bands;
  return survey.bands.size === 1 && only !== undefined ? categoryBandOf(only) ?? 'ALL' : 'ALL';
}

function defaultMode(survey: LogSurvey): string {
  const [only] = survey.modes;
  return survey.modes.size === 1 && only !== undefined ? CATEGORY_MODE_OF[only] : 'MIXED';
}

/**
 * The header lines, START-OF-LOG first: the contest's Cabrillo name, the location's callsign
 * and grid, the categories (band and mode default to what the log holds), the person's own
 * values only where given, CLAIMED-SCORE only when asked for.
 */
export function cabrilloHeader(session: CabrilloSession, options: CabrilloOptions, survey: LogSurvey): string[] {
  const { categories, text } = options;
  const tag = (name: string, value: string | undefined) => (value === undefined ? [] : [`${name}: ${value}`]);
  const operators = text.operators ?? (survey.operators.size ? [...survey.operators].join(' ') : session.callsign.toUpperCase());
  return [
    'START-OF-LOG: 3.0',
    `CONTEST: ${text.contest_name ?? cabrilloContestName(session.contest)}`,
    `CALLSIGN: ${session.callsign.toUpperCase()}`,
    ...tag('LOCATION', text.location),
    `CATEGORY-OPERATOR: ${categories.operator}`,
    `CATEGORY-ASSISTED: ${categories.assisted}`,
    `CATEGORY-BAND: ${categories.band ?? defaultBand(survey)}`,
    `CATEGORY-MODE: ${categories.mode ?? defaultMode(survey)}`,
    `CATEGORY-POWER: ${categories.power}`,
    `CATEGORY-STATION: ${categories.station}`,
    `CATEGORY-TRANSMITTER: ${categories.transmitter}`,
    ...tag('CATEGORY-OVERLAY', categories.overlay),
    ...tag('CLAIMED-SCORE', options.claimedScore === null ? undefined : String(options.claimedScore)),
    ...tag('CLUB', text.club),
    ...tag('GRID-LOCATOR', session.gridsquare ? session.gridsquare.slice(0, 6).toUpperCase() : undefined),
    `OPERATORS: ${operators}`,
    ...tag('NAME', text.name),
    ...options.address.map((line) => `ADDRESS: ${line}`),
    ...tag('EMAIL', text.email),
    ...options.soapbox.map((line) => `SOAPBOX: ${line}`),
    `CREATED-BY: logbook ${appVersion}`,
  ];
}
