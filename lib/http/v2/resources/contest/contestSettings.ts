import { validationError } from '../../../errors.js';
import { readBoolean, readText } from '../../../bodyValues.js';

/**
 * The contest-session settings of the logging form. Bodies carry them as top-level members
 * (bodies are scalar-only), `exchangefields` as a comma-separated string; responses show them
 * as the `settings` object, merged over the defaults, with `exchangetype` derived from the fields.
 */

const EXCHANGE_FIELDS = ['serial', 'gridsquare', 'exchange'] as const;
type ExchangeField = (typeof EXCHANGE_FIELDS)[number];
const COPY_TARGETS = ['', 'dok', 'locator', 'qth', 'name', 'age', 'state', 'power'] as const;
const SERIAL_SCOPES = ['station', 'operator'] as const;

/** What is stored in contest_sessions.settings. */
export interface StoredSettings {
  exchangefields: ExchangeField[];
  copyexchangeto: (typeof COPY_TARGETS)[number];
  callbook_lookup: boolean;
  custom_name: string;
  serial_per_band: boolean;
  serial_scope: (typeof SERIAL_SCOPES)[number];
}

export const SETTING_NAMES = ['exchangefields', 'copyexchangeto', 'callbook_lookup', 'custom_name', 'serial_per_band', 'serial_scope'] as const;

export const DEFAULT_SETTINGS: StoredSettings = {
  exchangefields: ['serial'],
  copyexchangeto: '',
  callbook_lookup: true,
  custom_name: '',
  serial_per_band: false,
  serial_scope: 'station',
};

export interface ContestSettings extends StoredSettings {
  exchangetype: string;
}

/** The form's older single choice, kept in step with the fields so the two never disagree. */
function exchangeType(fields: readonly string[]): string {
  const serial = fields.includes('serial');
  const grid = fields.includes('gridsquare');
  const exchange = fields.includes('exchange');
  if (serial && grid && exchange) return 'SerialGridExchange';
  if (serial && grid) return 'Serialgridsquare';
  if (serial && exchange) return 'Serialexchange';
  if (exchange && grid) return 'Exchangegridsquare';
  return serial ? 'Serial' : 'Exchange';
}

/** Stored settings (possibly sparse, possibly with keys of a later version) as the API shows them. */
export function presentSettings(stored: Partial<StoredSettings>): ContestSettings {
  const settings = { ...DEFAULT_SETTINGS, ...stored };
  return { ...settings, exchangetype: exchangeType(settings.exchangefields) };
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  const text = readText(value, field, 32).toLowerCase();
  if (!(allowed as readonly string[]).includes(text)) throw validationError(`Field "${field}" must be one of: ${allowed.filter(Boolean).join(', ')}`, { field, allowed });
  return text as T;
}

function readExchangeFields(value: unknown): ExchangeField[] {
  const fields = [...new Set(readText(value, 'exchangefields', 64).toLowerCase().split(',').map((f) => f.trim()).filter(Boolean))];
  if (!fields.length || fields.some((f) => !(EXCHANGE_FIELDS as readonly string[]).includes(f))) {
    throw validationError('Field "exchangefields" must be a comma-separated list of serial, gridsquare, exchange', { field: 'exchangefields', allowed: EXCHANGE_FIELDS });
  }
  return fields as ExchangeField[];
}

const READERS: { [K in keyof StoredSettings]: (value: unknown) => StoredSettings[K] } = {
  exchangefields: readExchangeFields,
  copyexchangeto: (value) => (value === null ? '' : oneOf(value, 'copyexchangeto', COPY_TARGETS)),
  callbook_lookup: (value) => readBoolean(value, 'callbook_lookup'),
  custom_name: (value) => readText(value, 'custom_name', 255),
  serial_per_band: (value) => readBoolean(value, 'serial_per_band'),
  serial_scope: (value) => oneOf(value, 'serial_scope', SERIAL_SCOPES),
};

/** The settings members present in a body, validated. */
export function readSettingsChanges(body: Record<string, unknown>): Partial<StoredSettings> {
  const changes: Partial<Record<keyof StoredSettings, unknown>> = {};
  for (const name of SETTING_NAMES) {
    if (name in body) changes[name] = READERS[name](body[name]);
  }
  return changes as Partial<StoredSettings>;
}
