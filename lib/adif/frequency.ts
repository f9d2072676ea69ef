/**
 * Frequencies are stored as whole Hz. Conversion works on the decimal digits
 * themselves, never through a float multiply, so "14.074" MHz is exactly 14074000
 * and not 14073999.999999998.
 */

export type FrequencyUnit = 'MHz' | 'Hz';

/**
 * Digits, optional fraction, optional unit: a prefix letter (K/M/G/T), "Hz", or both. Matched
 * against the trimmed value: with a \s* on each side of the optional unit, a long run of
 * whitespace followed by garbage was split in every possible way before failing (quadratic).
 */
const FREQUENCY_PATTERN = /^(\d*)(?:\.(\d*))?\s*([kmgt])?(hz)?$/i;

/** Decimal places to shift a value in the given unit to reach Hz. */
const PREFIX_SHIFT: Readonly<Record<string, number>> = { k: 3, m: 6, g: 9, t: 12 };
const DEFAULT_SHIFT: Readonly<Record<FrequencyUnit, number>> = { MHz: 6, Hz: 0 };

const ASCII_FIVE = 53;

/**
 * Parses a frequency into whole Hz, or null when the input is not a non-negative
 * decimal number (with an optional unit). A unit suffix (K, M, G, T, kHz, MHz, GHz,
 * THz, Hz; any case, spaces allowed) overrides `defaultUnit`. Digits beyond whole Hz
 * are rounded half up on the first dropped digit: "7.0745675" MHz → 7074568.
 * A JS number is read through its shortest decimal form, so 14.074 behaves like "14.074".
 */
export function parseFrequency(input: string | number, defaultUnit: FrequencyUnit): number | null {
  const match = FREQUENCY_PATTERN.exec(typeof input === 'number' ? String(input) : input.trim());
  if (match === null) return null;
  const [, wholeDigits = '', fractionDigits = '', prefix, hz] = match;
  if (wholeDigits === '' && fractionDigits === '') return null;

  let shift: number;
  if (prefix !== undefined) shift = PREFIX_SHIFT[prefix.toLowerCase()]!;
  else if (hz !== undefined) shift = 0;
  else shift = DEFAULT_SHIFT[defaultUnit];

  const keptFraction = fractionDigits.slice(0, shift).padEnd(shift, '0');
  let value = Number((wholeDigits || '0') + keptFraction);
  if (fractionDigits.charCodeAt(shift) >= ASCII_FIVE) value += 1;
  return Number.isSafeInteger(value) ? value : null;
}

const TRAILING_ZEROS = /0+$/;

/**
 * Whole Hz → MHz text with up to six decimals and no trailing zeros
 * (14074000 → "14.074", 14000000 → "14"), exactly inverting parseFrequency(…, 'MHz').
 */
export function formatMhz(hz: number): string {
  if (!Number.isSafeInteger(hz) || hz < 0) throw new RangeError(`not a frequency in whole Hz: ${hz}`);
  const digits = String(hz).padStart(7, '0');
  const whole = digits.slice(0, -6);
  const fraction = digits.slice(-6).replace(TRAILING_ZEROS, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}
