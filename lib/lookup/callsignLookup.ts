import type pg from 'pg';
import { SqlParams } from '../db/sqlParams.js';
import { scopeConditions, type QsoScope } from '../qso/scope.js';
import { bandCondition, callCondition, confirmedCondition, modeCondition } from '../qso/filters.js';
import { resolveCallsign } from '../dxcc/resolver.js';
import { dxccEntity } from '../dxcc/entities.js';
import { dxccFlag } from '../dxcc/flags.js';
import { gridCentre } from '../adif/gridPosition.js';
import { AWARD_CONFIRMATIONS } from '../statistics/awardConfirmations.js';

/**
 * What the owner's log knows about a callsign: its DXCC entity (from the prefix table, portable
 * forms included) and whether the call and the entity were worked and confirmed, overall, on a
 * band, and on a band and mode. The result has the v1 `api/private_lookup` shape, which the v2
 * lookup resource returns for `detail=full`. Text members are strings ("" when unknown), as the
 * original sends them; "confirmed" means by paper QSL or LoTW. The entity is described as the
 * original does: its ADIF name in capitals, its flag emoji and its own position (cty.csv's entity
 * row), not that of the prefix the call matched (Sicily's for IT9…).
 */

export interface DxccFields {
  dxcc: string;
  dxcc_id: string;
  dxcc_lat: string;
  dxcc_long: string;
  dxcc_cqz: string;
  /** The entity's flag emoji (lib/dxcc/flags.ts); "" for an entity without one. */
  dxcc_flag: string;
  cont: string;
}

/** What the latest QSOs with the call say about the station ("" when none says it). */
export interface WorkedDetails {
  name: string;
  gridsquare: string;
  location: string;
  iota_ref: string;
  state: string;
  us_county: string;
  qsl_manager: string;
  /** Not computed here: always "". */
  bearing: string;
}

export interface PrivateLookupResult extends DxccFields, WorkedDetails {
  callsign: string;
  call_worked: boolean;
  call_worked_band: boolean;
  call_worked_band_mode: boolean;
  /** No LoTW user list here: always false. */
  lotw_member: boolean;
  dxcc_confirmed_on_band: boolean;
  dxcc_confirmed_on_band_mode: boolean;
  dxcc_confirmed: boolean;
  call_confirmed: boolean;
  call_confirmed_band: boolean;
  call_confirmed_band_mode: boolean;
  /** "Portable", "Mobile", "Maritime Mobile", null for another suffix, "" when not evaluated. */
  suffix_slash: string | null;
  /** ITU zone of the entity; only present when known. */
  dxcc_ituz?: number;
  /** [lat, lng] of the centre of `gridsquare`; only present when a QSO gave one. */
  latlng?: [number, number];
}

/** The v1 `api/lookup` shape: DXCC, the latest details, and whether the call was worked at all. */
export interface BasicLookupResult extends DxccFields, WorkedDetails {
  callsign: string;
  workedBefore: boolean;
  lotw_member: boolean;
  suffix_slash: string | null;
}

export interface LookupRequest {
  /** Normalised (upper-case) callsign. */
  callsign: string;
  /** A band or `SAT`; without it the band flags are false. */
  band: string | null;
  /** A mode or submode; without it (or without a band) the band+mode flags are false. */
  mode: string | null;
  scope: QsoScope;
}

/**
 * The locations a lookup covers: the requested ids the owner has (others are dropped without
 * an error); when none is left, or none was asked for, all of the owner's.
 */
export function grantedStationIds(owned: readonly number[], requested: readonly number[] | null): number[] {
  const granted = requested?.filter((id) => owned.includes(id)) ?? [];
  return granted.length ? [...new Set(granted)] : [...owned];
}

const SUFFIX_LABELS: Readonly<Record<string, string>> = { P: 'Portable', M: 'Mobile', MM: 'Maritime Mobile' };

/** Only a slash after the fifth character is a suffix (so "VP2E/…" prefixes are not); as the original. */
export function suffixSlash(callsign: string): string | null {
  const slash = callsign.lastIndexOf('/');
  if (slash <= 4) return '';
  return SUFFIX_LABELS[callsign.slice(slash + 1)] ?? null;
}

function dxccFields(callsign: string): { fields: DxccFields; adif: number | null; ituz: number | null } {
  const match = resolveCallsign(callsign);
  if (!match) return { fields: { dxcc: '', dxcc_id: '', dxcc_lat: '', dxcc_long: '', dxcc_cqz: '', dxcc_flag: '', cont: '' }, adif: null, ituz: null };
  // The entity's (Italy for IT9…): the prefix row may name a region that is no entity.
  const entity = dxccEntity(match.adif);
  return {
    fields: {
      dxcc: entity?.adifName ?? match.name,
      dxcc_id: String(match.adif),
      dxcc_lat: String(entity?.lat ?? match.lat),
      dxcc_long: String(entity?.long ?? match.long),
      dxcc_cqz: String(match.cqz),
      dxcc_flag: dxccFlag(match.adif),
      cont: match.continent,
    },
    adif: match.adif,
    ituz: match.ituz > 0 ? match.ituz : null,
  };
}

interface CallRow extends Omit<WorkedDetails, 'bearing'> {
  worked: boolean;
  worked_band: boolean;
  worked_band_mode: boolean;
  confirmed: boolean;
  confirmed_band: boolean;
  confirmed_band_mode: boolean;
}

type Flags = Pick<CallRow, 'worked' | 'worked_band' | 'worked_band_mode' | 'confirmed' | 'confirmed_band' | 'confirmed_band_mode'>;

/** The six worked/confirmed aggregates over the rows a WHERE clause selects. */
function flagAggregates(request: LookupRequest, params: SqlParams): string {
  const band = (request.band !== null ? bandCondition(request.band, params) : null) ?? 'false';
  const bandMode = band !== 'false' && request.mode !== null ? `${band} AND ${modeCondition(request.mode, params)}` : 'false';
  const confirmed = confirmedCondition(AWARD_CONFIRMATIONS);
  return `count(*) > 0 AS worked,
          coalesce(bool_or(${band}), false) AS worked_band,
          coalesce(bool_or(${bandMode}), false) AS worked_band_mode,
          coalesce(bool_or(${confirmed}), false) AS confirmed,
          coalesce(bool_or(${confirmed} AND ${band}), false) AS confirmed_band,
          coalesce(bool_or(${confirmed} AND ${bandMode}), false) AS confirmed_band_mode`;
}

const DETAIL_COLUMNS: Record<keyof Omit<WorkedDetails, 'bearing'>, string> = {
  name: 'name', gridsquare: 'gridsquare', location: 'qth', iota_ref: 'iota', state: 'state', us_county: 'cnty', qsl_manager: 'qsl_via',
};

/** One pass over the QSOs with the call: the flags, and per detail the newest non-empty value. */
async function callData(db: pg.Pool, request: LookupRequest): Promise<CallRow> {
  const params = new SqlParams();
  const latest = Object.entries(DETAIL_COLUMNS).map(([member, column]) =>
    `coalesce((array_agg(q.${column} ORDER BY q.time_on DESC, q.id DESC) FILTER (WHERE q.${column} <> ''))[1], '') AS ${member}`);
  const { rows } = await db.query<CallRow>(
    `SELECT ${flagAggregates(request, params)}, ${latest.join(', ')}
       FROM qso q WHERE ${[...scopeConditions(request.scope, params), callCondition(params.add(request.callsign))].join(' AND ')}`,
    params.values,
  );
  return rows[0]!;
}

type EntityFlags = Pick<Flags, 'confirmed' | 'confirmed_band' | 'confirmed_band_mode'>;

/**
 * Whether the entity is confirmed (card or LoTW), on the band, on the band and mode (from the
 * QSOs' stored dxcc). Confirmed at all: summed from qso_dxcc_counts, a few rows. On the band
 * (and mode): a probe each, ending at the first confirmed QSO it finds, run only for an entity
 * confirmed at all. No index leads to an entity's confirmed QSOs since sql/050 (docs/storage.md:
 * every writer paid for it), so such a probe may read the location's QSOs up to the first match;
 * an entity never confirmed, which read them all, is answered from the counts alone.
 */
async function dxccConfirmation(db: pg.Pool, request: LookupRequest, adif: number): Promise<EntityFlags> {
  const params = new SqlParams();
  const entity = params.add(adif);
  const counted = [...scopeConditions(request.scope, params, 'c'), `c.dxcc = ${entity}`, confirmedCondition(AWARD_CONFIRMATIONS, 'c')];
  // Bound only when a probe runs: a parameter no statement names has no type.
  let confirmedOfEntity: string[] | undefined;
  const ofEntity = () => (confirmedOfEntity ??= [...scopeConditions(request.scope, params), `q.dxcc = ${entity}`, confirmedCondition(AWARD_CONFIRMATIONS)]);
  const band = request.band !== null ? bandCondition(request.band, params) : null;
  const mode = band !== null && request.mode !== null ? modeCondition(request.mode, params) : null;
  // CASE, not AND: the probe must not run for an entity the counts say was never confirmed.
  const probe = (...more: Array<string | null>) =>
    more.includes(null) ? 'false' : `CASE WHEN e.confirmed THEN EXISTS (SELECT 1 FROM qso q WHERE ${[...ofEntity(), ...more].join(' AND ')}) ELSE false END`;
  const { rows } = await db.query<EntityFlags>(
    `SELECT e.confirmed, ${probe(band)} AS confirmed_band, ${probe(band, mode)} AS confirmed_band_mode
       FROM (SELECT coalesce(sum(c.n), 0) > 0 AS confirmed FROM qso_dxcc_counts c WHERE ${counted.join(' AND ')}) e`,
    params.values,
  );
  return rows[0]!;
}

function workedDetails(row: CallRow): WorkedDetails {
  const { name, gridsquare, location, iota_ref, state, us_county, qsl_manager } = row;
  return { name, gridsquare, location, iota_ref, state, us_county, qsl_manager, bearing: '' };
}

export async function privateLookup(db: pg.Pool, request: LookupRequest): Promise<PrivateLookupResult> {
  const { fields, adif, ituz } = dxccFields(request.callsign);
  const [call, entity] = await Promise.all([
    callData(db, request),
    adif !== null ? dxccConfirmation(db, request, adif) : null,
  ]);
  return {
    callsign: request.callsign,
    ...fields,
    ...workedDetails(call),
    call_worked: call.worked,
    call_worked_band: call.worked_band,
    call_worked_band_mode: call.worked_band_mode,
    lotw_member: false,
    dxcc_confirmed_on_band: entity?.confirmed_band ?? false,
    dxcc_confirmed_on_band_mode: entity?.confirmed_band_mode ?? false,
    dxcc_confirmed: entity?.confirmed ?? false,
    call_confirmed: call.confirmed,
    call_confirmed_band: call.confirmed_band,
    call_confirmed_band_mode: call.confirmed_band_mode,
    suffix_slash: suffixSlash(request.callsign),
    ...(ituz !== null ? { dxcc_ituz: ituz } : {}),
    ...latlngOf(call.gridsquare),
  };
}

/** The original's `latlng`: the centre of the grid a QSO gave, rounded to six decimals (about 0.1 m). */
function latlngOf(gridsquare: string): { latlng?: [number, number] } {
  const centre = gridsquare === '' ? null : gridCentre(gridsquare);
  if (centre === null) return {};
  const round = (degrees: number) => Math.round(degrees * 1e6) / 1e6;
  return { latlng: [round(centre.lat), round(centre.lng)] };
}

export async function basicLookup(db: pg.Pool, request: Pick<LookupRequest, 'callsign' | 'scope'>): Promise<BasicLookupResult> {
  const { fields } = dxccFields(request.callsign);
  const call = await callData(db, { ...request, band: null, mode: null });
  return {
    callsign: request.callsign,
    ...fields,
    ...workedDetails(call),
    workedBefore: call.worked,
    lotw_member: false,
    suffix_slash: suffixSlash(request.callsign),
  };
}

/** Whether the scope holds a QSO with `callsign` (normalised), on `band` when not null (v1 `logbook_check_callsign`). */
export async function callsignWorked(db: pg.Pool, scope: QsoScope, callsign: string, band: string | null): Promise<boolean> {
  const params = new SqlParams();
  const conditions = [...scopeConditions(scope, params), callCondition(params.add(callsign))];
  const bandFilter = band === null ? null : bandCondition(band, params);
  if (bandFilter) conditions.push(bandFilter);
  const { rowCount } = await db.query(`SELECT 1 FROM qso q WHERE ${conditions.join(' AND ')} LIMIT 1`, params.values);
  return (rowCount ?? 0) > 0;
}
