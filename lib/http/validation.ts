import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { validationError } from './errors.js';
import type { JsonSchema } from './v2/resource.js';

/**
 * One ajv instance for every request schema. The schemas live beside their resources and are
 * also what /openapi.json publishes, so the documentation cannot drift from the validation.
 */
const ajv = new Ajv({ allErrors: false, strict: false });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function fieldOf(error: ErrorObject): string | undefined {
  if (error.keyword === 'required') return (error.params as { missingProperty: string }).missingProperty;
  if (error.keyword === 'additionalProperties') return (error.params as { additionalProperty: string }).additionalProperty;
  return error.instancePath.replace(/^\//, '').split('/')[0] || undefined;
}

function messageOf(error: ErrorObject, where: string): string {
  const field = fieldOf(error);
  if (error.keyword === 'required') return `Missing required ${where} field "${field}"`;
  if (error.keyword === 'additionalProperties') return `Unknown ${where} field "${field}"`;
  return field ? `${where === 'query' ? 'Parameter' : 'Field'} "${field}" ${error.message}` : `Request ${where} ${error.message}`;
}

/** Throws 400 validation_error naming the first offending field. */
export function validateAgainst(schema: JsonSchema, value: unknown, where: 'query' | 'body'): void {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return;
  const error = validate.errors![0]!;
  const field = fieldOf(error);
  throw validationError(messageOf(error, where), field ? { field } : {});
}
