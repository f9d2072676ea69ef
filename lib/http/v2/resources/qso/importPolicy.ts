import { ApiError, validationError } from '../../../errors.js';
import { asBoolean } from '../../../../input/jsonValues.js';
import { validateAgainst } from '../../../validation.js';
import type { JsonSchema } from '../../resource.js';
import { DUPLICATE_POLICIES, type DuplicatePolicy } from '../../../../import/types.js';

/**
 * The members of a bulk or ADIF import body that say what becomes of records already in the
 * log: `on_duplicate` (skip, confirm, merge; absent: confirm for recognised downloads, else
 * skip), `insert_unmatched` (a download's records that match no QSO are inserted, or only
 * reported; absent: by what the download is, ImportOptions.insertUnmatched) and
 * `strict_callsign` (records of another station callsign are refused, not only counted).
 */

export interface ImportPolicy {
  onDuplicate?: DuplicatePolicy;
  insertUnmatched?: boolean;
  strictCallsign: boolean;
}

export const IMPORT_POLICY_MEMBERS = ['on_duplicate', 'insert_unmatched', 'strict_callsign'] as const;

/** Also part of the create body's published schema. */
export const IMPORT_POLICY_PROPERTIES: Record<string, JsonSchema> = {
  on_duplicate: { enum: [...DUPLICATE_POLICIES, null], description: 'records already in the log: skip, confirm or merge' },
  insert_unmatched: {
    type: ['boolean', 'integer', 'string', 'null'],
    description: "a recognised download's records that match no QSO are inserted (true) or only reported (false); absent: inserted for a QRZ or Club Log download or into a location without QSOs",
  },
  strict_callsign: { type: ['boolean', 'integer', 'string', 'null'], description: "records whose STATION_CALLSIGN (else OPERATOR) is not the location's callsign are refused" },
};

const IMPORT_POLICY_SCHEMA: JsonSchema = { type: 'object', properties: IMPORT_POLICY_PROPERTIES };

/** A flag that may come as a query or form string ("true", "1"), like dryrun; undefined when absent. */
function flag(name: string, value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  const on = asBoolean(value);
  if (on === undefined) throw validationError(`Field "${name}" must be true or false`, { field: name });
  return on;
}

export function readImportPolicy(members: Readonly<Record<string, unknown>>): ImportPolicy {
  const { on_duplicate: onDuplicate, insert_unmatched: insertUnmatched, strict_callsign: strictCallsign } = members;
  try {
    validateAgainst(IMPORT_POLICY_SCHEMA, { on_duplicate: onDuplicate, insert_unmatched: insertUnmatched, strict_callsign: strictCallsign }, 'body');
  } catch (error) {
    if (error instanceof ApiError && error.details.field === 'on_duplicate') {
      throw validationError(`Field "on_duplicate" must be one of ${DUPLICATE_POLICIES.join(', ')}`, { field: 'on_duplicate', allowed: DUPLICATE_POLICIES });
    }
    throw error;
  }
  return {
    onDuplicate: (onDuplicate ?? undefined) as DuplicatePolicy | undefined,
    insertUnmatched: flag('insert_unmatched', insertUnmatched),
    strictCallsign: flag('strict_callsign', strictCallsign) === true,
  };
}

export function samePolicy(a: ImportPolicy, b: ImportPolicy): boolean {
  return a.onDuplicate === b.onDuplicate && a.insertUnmatched === b.insertUnmatched && a.strictCallsign === b.strictCallsign;
}
