import { enumeration } from './spec.js';

/** A main mode and the submodes the ADIF Submode enumeration lists under it. */
export interface ModeEntry {
  readonly mode: string;
  readonly submodes: readonly string[];
}

/**
 * Spellings the original product's mode table splits but ADIF 3.1.6 writes with
 * spaces ("VARA HF"). Clients send these, so both spellings split to DYNAMIC.
 */
const PRODUCT_SUBMODE_ALIASES: Readonly<Record<string, string>> = {
  VARAHF: 'DYNAMIC',
  VARASATELLITE: 'DYNAMIC',
  VARAFM1200: 'DYNAMIC',
  VARAFM9600: 'DYNAMIC',
};

/** Submode → its main mode. */
const MAIN_MODE_OF_SUBMODE: ReadonlyMap<string, string> = new Map([
  ...enumeration('Submode').map((row): [string, string] => [row['Submode']!, row['Mode']!]),
  ...Object.entries(PRODUCT_SUBMODE_ALIASES),
]);

/**
 * ADIF modes. Import-only modes (PSK31, C4FM, …) are also submodes today; since a
 * submode is looked up first they always split (PSK31 → PSK/PSK31) and are not
 * listed here.
 */
const MAIN_MODES: ReadonlySet<string> = new Set(
  enumeration('Mode')
    .filter((row) => row['Import-only'] !== 'true')
    .map((row) => row['Mode']!),
);

/** The mode table (ADIF Mode enumeration with its submodes), in specification order. */
export const MODE_TABLE: readonly ModeEntry[] = [...MAIN_MODES].map((mode) => ({
  mode,
  submodes: enumeration('Submode')
    .filter((row) => row['Mode'] === mode)
    .map((row) => row['Submode']!),
}));

export interface SplitMode {
  mode: string;
  submode: string | null;
}

/**
 * Splits a logged mode into main mode and submode, the way the duplicate check and
 * storage need it: a known submode becomes its main mode plus itself (FT4 → MFSK/FT4,
 * USB → SSB/USB); a mode keeps the record's own SUBMODE (MFSK + FT4 → MFSK/FT4);
 * anything else is kept upper-cased with the submode as given. An empty mode stays
 * empty (the original product turned it into AM by accident), unless a known
 * submode names it. A submode that is an ADIF submode is upper-cased.
 */
export function splitMode(input: string, submode?: string | null): SplitMode {
  const mode = input.trim().toUpperCase();
  const mainOfMode = MAIN_MODE_OF_SUBMODE.get(mode);
  if (mainOfMode !== undefined) return { mode: mainOfMode, submode: mode };

  const given = submode?.trim() ?? '';
  if (given === '') return { mode, submode: null };
  const upperSubmode = given.toUpperCase();
  const mainOfSubmode = MAIN_MODE_OF_SUBMODE.get(upperSubmode);
  if (mainOfSubmode === undefined) return { mode, submode: given };
  return { mode: mode === '' ? mainOfSubmode : mode, submode: upperSubmode };
}

/** The main mode of a mode or submode (FT4 → MFSK, FT8 → FT8), upper-cased. */
export function mainMode(input: string): string {
  const mode = input.trim().toUpperCase();
  return MAIN_MODE_OF_SUBMODE.get(mode) ?? mode;
}

/** Whether `input` (any case) is an ADIF mode or submode, i.e. something splitMode recognises. */
export function isKnownMode(input: string): boolean {
  const mode = input.trim().toUpperCase();
  return MAIN_MODES.has(mode) || MAIN_MODE_OF_SUBMODE.has(mode);
}

/** Rig (CAT) mode spellings that name a plain mode with a sideband or data variant. */
const RIG_MODE_ALIASES: Readonly<Record<string, string>> = {
  'CW-U': 'CW',
  'CW-L': 'CW',
  'CW-R': 'CW',
  CWU: 'CW',
  CWL: 'CW',
  'RTTY-L': 'RTTY',
  'RTTY-U': 'RTTY',
  'RTTY-R': 'RTTY',
  'USB-D': 'USB',
  'USB-D1': 'USB',
  'LSB-D': 'LSB',
  'LSB-D1': 'LSB',
};

/** A mode reported by rig control, upper-cased, with rig-specific variants folded (CW-U → CW, USB-D1 → USB). */
export function normalizeRigMode(input: string): string {
  const mode = input.trim().toUpperCase();
  return RIG_MODE_ALIASES[mode] ?? mode;
}
