import { asInteger, asText, isBlank } from '../input/jsonValues.js';
import { normalizeRigMode } from '../adif/modes.js';

/**
 * What a client reports about a radio (CAT state), validated with the limits both APIs apply:
 * radio name up to 250 characters, frequencies (Hz) and power (W) whole non-negative numbers,
 * modes up to 10 characters, satellite name up to 255.
 */

type Kind = 'integer' | 'mode' | 'text' | 'url';

const COLUMN_KINDS = {
  frequency: 'integer',
  frequency_rx: 'integer',
  mode: 'mode',
  mode_rx: 'mode',
  power: 'integer',
  prop_mode: 'text',
  sat_name: 'text',
  sat_mode: 'text',
  uplink_freq: 'integer',
  downlink_freq: 'integer',
  uplink_mode: 'mode',
  downlink_mode: 'mode',
  cat_url: 'url',
} as const satisfies Record<string, Kind>;

/** Columns of the radio state a client may set. */
export type RadioColumn = keyof typeof COLUMN_KINDS;

export type RadioValues = Partial<Record<RadioColumn, string | number | null>>;

export interface RadioInput {
  /** The radio's name, or null when the body has none. */
  radio: string | null;
  /** The columns the body sets (absent ones keep their stored value). */
  values: RadioValues;
  /** Members that break a limit, in body order. */
  invalid: string[];
}

const RADIO_NAME_LIMIT = 250;
const MODE_LIMIT = 10;
const TEXT_LIMIT = 255;
const MAX_INT = 2_147_483_647;
const MAX_HZ = Number.MAX_SAFE_INTEGER;

/** A rig reports "no mode" as an empty string or "non". */
function readMode(text: string): string | null {
  const mode = normalizeRigMode(text);
  return mode === '' || mode === 'NON' ? null : mode;
}

/** The parsed value, or undefined when it breaks the column's rule. */
function readColumn(column: RadioColumn, value: unknown): string | number | null | undefined {
  if (isBlank(value)) return null;
  const kind: Kind = COLUMN_KINDS[column];
  if (kind === 'integer') {
    const number = asInteger(value);
    const max = column === 'power' ? MAX_INT : MAX_HZ;
    return number !== undefined && number >= 0 && number <= max ? number : undefined;
  }
  const text = typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined) return undefined;
  if (kind === 'mode') return text.length <= MODE_LIMIT ? readMode(text) : undefined;
  if (text.length > TEXT_LIMIT) return undefined;
  if (kind === 'url') return /^https?:\/\/\S+$/i.test(text) ? text : undefined;
  return text;
}

/** Reads the radio name and the given columns from a body; members outside `columns` are left alone. */
export function readRadioInput(body: Record<string, unknown>, columns: readonly RadioColumn[]): RadioInput {
  const invalid: string[] = [];
  let radio: string | null = null;
  if (!isBlank(body.radio)) {
    const name = asText(body.radio);
    if (name === undefined || [...name].length > RADIO_NAME_LIMIT) invalid.push('radio');
    else radio = name;
  }
  const values: RadioValues = {};
  for (const column of columns) {
    if (!(column in body)) continue;
    const value = readColumn(column, body[column]);
    if (value === undefined) invalid.push(column);
    else values[column] = value;
  }
  return { radio, values, invalid };
}
