import type { SqlParams } from '../db/sqlParams.js';
import type { ScopeOn } from '../qso/scope.js';
import { dxccEntities } from '../dxcc/entities.js';

/**
 * A subquery of the scope's worked DXCC entities, one row each: `dxcc`, `qsl_rcvd` and
 * `lotw_qsl_rcvd` ('Y' when any of its QSOs was confirmed so, as counted) and `deleted`. Read
 * from qso_dxcc_counts (sql/025: the scope's QSOs per entity and whether card and LoTW confirmed
 * them, a few rows per entity worked), not from every QSO of the scope (420 ms at 1M QSOs). An
 * entity is the QSOs' stored `dxcc` (filled at import from the prefix table).
 */
export function dxccEntityRowsSql(scopeOn: ScopeOn, params: SqlParams): string {
  const deleted = params.add(dxccEntities('name').filter((e) => e.deleted).map((e) => e.adif));
  return `SELECT s.dxcc, max(s.qsl_rcvd) AS qsl_rcvd, max(s.lotw_qsl_rcvd) AS lotw_qsl_rcvd, s.dxcc = ANY(${deleted}::int[]) AS deleted
      FROM (SELECT c.dxcc, c.qsl_rcvd, c.lotw_qsl_rcvd FROM qso_dxcc_counts c WHERE ${scopeOn('c')} AND c.dxcc > 0
             GROUP BY 1, 2, 3 HAVING sum(c.n) <> 0) s
     GROUP BY s.dxcc`;
}
