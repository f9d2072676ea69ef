import type pg from 'pg';
import { SqlParams } from '../db/sqlParams.js';
import { scopeOnAliases, type QsoScope } from '../qso/scope.js';
import { confirmedCondition } from '../qso/filters.js';
import { dxccEntities } from '../dxcc/entities.js';
import { BANDS } from '../adif/bands.js';
import { AWARD_CONFIRMATIONS } from './awardConfirmations.js';

export interface DxccBand {
  band: string;
  /** Current DXCC entities worked on the band, and confirmed there by QSL card or LoTW. */
  worked: number;
  confirmed: number;
}

const BAND_ORDER = new Map(BANDS.map((band, i) => [band.name, i]));

/**
 * The DXCC progress per band of a scope: distinct current entities (the QSOs' stored `dxcc`)
 * worked and confirmed on each band, bands in ADIF order from the longest wave. No table of
 * counts keeps entity per band, so this is one aggregate over the scope's QSOs with an entity:
 * asked for on its own (profile `dxcc`), never inside the cheap `qso` profile.
 */
export async function dxccByBand(db: pg.Pool, scope: QsoScope): Promise<DxccBand[]> {
  const params = new SqlParams();
  const scopeOn = scopeOnAliases(scope, params);
  const deleted = params.add(dxccEntities('name').filter((e) => e.deleted).map((e) => e.adif));
  const { rows } = await db.query<DxccBand>(
    `SELECT q.band, count(DISTINCT q.dxcc)::int AS worked,
            count(DISTINCT q.dxcc) FILTER (WHERE ${confirmedCondition(AWARD_CONFIRMATIONS, 'q')})::int AS confirmed
       FROM qso q
      WHERE ${scopeOn('q')} AND q.dxcc > 0 AND NOT q.dxcc = ANY(${deleted}::int[])
      GROUP BY q.band`,
    params.values,
  );
  const order = (band: string) => BAND_ORDER.get(band) ?? BANDS.length;
  return rows.sort((a, b) => order(a.band) - order(b.band) || a.band.localeCompare(b.band));
}
