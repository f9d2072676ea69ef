import { ApiError, validationError } from '../../../errors.js';
import { asBoolean } from '../../../../input/jsonValues.js';
import { validateAgainst } from '../../../validation.js';
import type { JsonSchema } from '../../resource.js';
import { DUPLICATE_POLICIES, type DuplicatePolicy } from '../../../../import/types.js';

/**
 * The members of a bulk or ADIF import body that say what becomes of records already in the
 * log: `on_duplicate` (skip, confirm, merge; absent: confirm for recognised downloads, else
 * skip) and `insert_unmatched` (a download's records that match no QSO are inserted too).
 */

export interface ImportPolicy {
  onDuplicate?: DuplicatePolicy;
  insertUnmatched: boolean;
}

export const IMPORT_POLICY_MEMBERS = ['on_duplicate', 'insert_unmatched'] as const;

/** Also part of the create body's published schema. */
export const IMPORT_POLICY_PROPERTIES: Record<string, JsonSchema> = {
  on_duplicate: { enum: [...DUPLICATE_POLICIES, null], description: 'records already in the log: skip, confirm or merge' },
  insert_unmatched: { type: ['boolean', 'integer', 'string', 'null'], description: "a recognised download's records that match no QSO are inserted too" },
};

const IMPORT_POLICY_SCHEMA: JsonSchema = { type: 'object', properties: IMPORT_POLICY_PROPERTIES };

export function readImportPolicy(members: Readonly<Record<string, unknown>>): ImportPolicy {
  const { on_duplicate: onDuplicate, insert_unmatched: insertUnmatched } = members;
  try {
    validateAgainst(IMPORT_POLICY_SCHEMA, { on_duplicate: onDuplicate, insert_unmatched: insertUnmatched }, 'body');
  } catch (error) {
    if (error instanceof ApiError && error.details.field === 'on_duplicate') {
      throw validationError(`Field "on_duplicate" must be one of ${DUPLICATE_POLICIES.join(', ')}`, { field: 'on_duplicate', allowed: DUPLICATE_POLICIES });
    }
    throw error;
  }
  // Like dryrun, a flag may come as a query or form string ("true", "1").
  const insert = insertUnmatched === undefined || insertUnmatched === null ? false : asBoolean(insertUnmatched);
  if (insert === undefined) throw validationError('Field "insert_unmatched" must be true or false', { field: 'insert_unmatched' });
  return { onDuplicate: (onDuplicate ?? undefined) as DuplicatePolicy | undefined, insertUnmatched: insert };
}

export function samePolicy(a: ImportPolicy, b: ImportPolicy): boolean {
  return a.onDuplicate === b.onDuplicate && a.insertUnmatched === b.insertUnmatched;
}
