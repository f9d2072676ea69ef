/**
 * The contest-session settings of the logging form. Bodies carry them as top-level members
 * (bodies are scalar-only), `exchangefields` as a comma-separated string; responses show them
 * as the `settings` object, merged over the defaults, with `exchangetype` derived from the fields.
 */

export const EXCHANGE_FIELDS = ['serial', 'gridsquare', 'exchange'] as const;
export type ExchangeField = (typeof EXCHANGE_FIELDS)[number];
export const COPY_TARGETS = ['', 'dok', 'locator', 'qth', 'name', 'age', 'state', 'power'] as const;
export const SERIAL_SCOPES = ['station', 'operator'] as const;

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
