/**
 * The header values a person chooses when submitting a log (categories, club, operators, name,
 * address, e-mail, soapbox), read from the same snake_case names on every door: the v2 query
 * (`category_power=LOW`) and the command line (`--category-power LOW`). A value may not break a
 * header line: a line break in a one-line value would let it write QSO lines of its own.
 */

const CATEGORIES = {
  operator: ['SINGLE-OP', 'MULTI-OP', 'CHECKLOG'],
  band: ['ALL', '160M', '80M', '40M', '20M', '15M', '10M', '6M', '4M', '2M', '222', '432', '902', '1.2G', '2.3G', '3.4G', '5.7G',
    '10G', '24G', '47G', '75G', '122G', '134G', '241G', 'LIGHT', 'VHF-3-BAND', 'VHF-FM-ONLY'],
  mode: ['CW', 'DIGI', 'FM', 'RTTY', 'SSB', 'MIXED'],
  power: ['HIGH', 'LOW', 'QRP'],
  station: ['DISTRIBUTED', 'FIXED', 'MOBILE', 'PORTABLE', 'ROVER', 'ROVER-LIMITED', 'ROVER-UNLIMITED', 'EXPEDITION', 'HQ', 'SCHOOL', 'EXPLORER'],
  transmitter: ['ONE', 'TWO', 'LIMITED', 'UNLIMITED', 'SWL'],
  assisted: ['ASSISTED', 'NON-ASSISTED'],
  overlay: ['CLASSIC', 'ROOKIE', 'TB-WIRES', 'YOUTH', 'NOVICE-TECH', 'OVER-50'],
} as const;

export type CategoryName = keyof typeof CATEGORIES;
export const CATEGORY_NAMES = Object.keys(CATEGORIES) as CategoryName[];

/** Written when the person chose nothing; band and mode default to what the log holds (header.ts). */
const CATEGORY_DEFAULTS: Partial<Record<CategoryName, string>> = {
  operator: 'SINGLE-OP', power: 'HIGH', station: 'FIXED', transmitter: 'ONE', assisted: 'NON-ASSISTED',
};

/** Transmitter categories whose QSO lines carry the transmitter id column. */
export const MULTI_TRANSMITTER: readonly string[] = ['TWO', 'LIMITED', 'UNLIMITED'];

const ONE_LINE_TEXT = ['contest_name', 'club', 'operators', 'location', 'name', 'email'] as const;
const MULTI_LINE_TEXT = { address: 6, soapbox: 20 } as const;
const MAX_LINE = 200;

export interface CabrilloOptions {
  categories: Partial<Record<CategoryName, string>>;
  text: Partial<Record<(typeof ONE_LINE_TEXT)[number], string>>;
  address: string[];
  soapbox: string[];
  /** CLAIMED-SCORE, written only when given. */
  claimedScore: number | null;
}

export class CabrilloOptionError extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
  }
}

/** Every option name, as the query and the command line spell it (snake_case). */
export const OPTION_NAMES: readonly string[] = [
  ...CATEGORY_NAMES.map((name) => `category_${name}`), ...ONE_LINE_TEXT, ...Object.keys(MULTI_LINE_TEXT), 'claimed_score',
];

function oneLine(field: string, value: string): string {
  const text = value.trim();
  if (/[\r\n]/.test(text)) throw new CabrilloOptionError(field, `${field} must be one line`);
  if (text.length > MAX_LINE) throw new CabrilloOptionError(field, `${field} is longer than ${MAX_LINE} characters`);
  return text;
}

function lines(field: keyof typeof MULTI_LINE_TEXT, value: string): string[] {
  const all = value.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
  if (all.length > MULTI_LINE_TEXT[field]) throw new CabrilloOptionError(field, `${field} has more than ${MULTI_LINE_TEXT[field]} lines`);
  return all.map((line) => oneLine(field, line));
}

/** Reads the options from their snake_case names; absent or empty values take the defaults. */
export function readCabrilloOptions(values: Readonly<Record<string, string | undefined>>): CabrilloOptions {
  const given = (name: string): string | undefined => (values[name]?.trim() ? values[name] : undefined);
  const categories: CabrilloOptions['categories'] = { ...CATEGORY_DEFAULTS };
  for (const name of CATEGORY_NAMES) {
    const value = given(`category_${name}`)?.trim().toUpperCase();
    if (value === undefined) continue;
    const allowed: readonly string[] = CATEGORIES[name];
    if (!allowed.includes(value)) throw new CabrilloOptionError(`category_${name}`, `category_${name} must be one of ${allowed.join(', ')}`);
    categories[name] = value;
  }
  const text: CabrilloOptions['text'] = {};
  for (const name of ONE_LINE_TEXT) {
    const value = given(name);
    if (value !== undefined) text[name] = oneLine(name, value);
  }
  const score = given('claimed_score')?.trim();
  if (score !== undefined && !/^\d{1,12}$/.test(score)) throw new CabrilloOptionError('claimed_score', 'claimed_score must be a whole number');
  return {
    categories,
    text,
    address: lines('address', values.address ?? ''),
    soapbox: lines('soapbox', values.soapbox ?? ''),
    claimedScore: score === undefined ? null : Number(score),
  };
}
