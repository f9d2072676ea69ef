import type { SqlParams } from '../db/sqlParams.js';
import { restrictedOperator, type Principal } from '../auth/principal.js';

/** Which QSOs a request may see: these station locations, and (club members below officer) one operator. */
export interface QsoScope {
  stationIds: readonly number[];
  operator: string | null;
}

export function qsoScope(principal: Principal, stationIds: readonly number[]): QsoScope {
  return { stationIds, operator: restrictedOperator(principal) };
}

/** SQL conditions for a scope on the QSO table aliased `alias`. */
export function scopeConditions(scope: QsoScope, params: SqlParams, alias = 'q'): string[] {
  const conditions = [`${alias}.station_id = ANY(${params.add(scope.stationIds)}::int[])`];
  if (scope.operator !== null) conditions.push(`${alias}.operator = ${params.add(scope.operator)}`);
  return conditions;
}

/**
 * A scope's conditions (with any filters the counts keep) on qso (q) or a table of counts (c),
 * their values bound in the statement's parameters: what lib/qso/counts.ts's sums take.
 */
export type ScopeOn = (alias: 'q' | 'c') => string;

/** A scope's ScopeOn: each alias's conditions bound once, when first used (an unused parameter has no type). */
export function scopeOnAliases(scope: QsoScope, params: SqlParams): ScopeOn {
  const on: Partial<Record<'q' | 'c', string>> = {};
  return (alias) => (on[alias] ??= scopeConditions(scope, params, alias).join(' AND '));
}
