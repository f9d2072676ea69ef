import { validationError } from '../../../errors.js';
import { readBoolean, readText } from '../../../bodyValues.js';
import { COPY_TARGETS, EXCHANGE_FIELDS, SERIAL_SCOPES, SETTING_NAMES, type ExchangeField, type StoredSettings } from '../../../../contests/settings.js';

/** The settings members of a contest body, read and validated (lib/contests/settings.ts has what they are). */

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
