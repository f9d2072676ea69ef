import type pg from 'pg';
import { SqlParams } from '../db/sqlParams.js';
import { scopeOnAliases, type QsoScope } from '../qso/scope.js';
import { confirmedCondition } from '../qso/filters.js';
import { AWARD_CONFIRMATIONS } from './awardConfirmations.js';
import { dxccEntityRowsSql } from './dxccEntityRows.js';

export interface DxccWorked {
  /** The entity's ADIF DXCC number. */
  dxcc: number;
  /** Confirmed by QSL card or LoTW (as the DXCC progress counts it). */
  confirmed: boolean;
}

/**
 * The current DXCC entities a scope worked, ascending by number: what the DXCC progress's
 * `worked` and `confirmed` count, one by one (the browser app's map of entities).
 */
export async function dxccWorked(db: pg.Pool, scope: QsoScope): Promise<DxccWorked[]> {
  const params = new SqlParams();
  const { rows } = await db.query<DxccWorked>(
    // The counts keep 'Y' or NULL: a NULL comparison is not confirmed.
    `SELECT e.dxcc, coalesce(${confirmedCondition(AWARD_CONFIRMATIONS, 'e')}, false) AS confirmed
       FROM (${dxccEntityRowsSql(scopeOnAliases(scope, params), params)}) e
      WHERE NOT e.deleted ORDER BY e.dxcc`,
    params.values,
  );
  return rows;
}
