import { enumeration } from '../adif/spec.js';
import { ctyTable, type CtyEntity } from './ctyTable.js';

/**
 * The DXCC entity catalogue: every ADIF DXCC_Entity_Code record, current and deleted,
 * with prefix, continent, zones and position from data/cty.csv where it lists the entity.
 * Deleted entities and code 0 ("None") are not in cty.csv: their location fields are null.
 */

export interface DxccEntity {
  readonly adif: number;
  /** cty.csv's mixed-case name (e.g. "Fed. Rep. of Germany"), else the ADIF name (e.g. "ABU AIL IS."). */
  readonly name: string;
  /** The ADIF specification's name, upper-case ("FEDERAL REPUBLIC OF GERMANY"), as the original's lookups answer it. */
  readonly adifName: string;
  /**
   * The name the original stores as a QSO's or location's country: the ADIF name with each word
   * capitalised ("Federal Republic Of Germany", "Bosnia-Herzegovina"). Empty for code 0 (no entity).
   */
  readonly countryName: string;
  /** cty.csv primary prefix, e.g. "DL", "3D2/c". */
  readonly prefix: string | null;
  readonly continent: string | null;
  readonly cqz: number | null;
  readonly ituz: number | null;
  readonly lat: number | null;
  /** East positive. */
  readonly long: number | null;
  readonly deleted: boolean;
}

export type DxccEntityOrder = 'name' | 'prefix';

interface Catalogue {
  readonly byCode: ReadonlyMap<number, DxccEntity>;
  readonly byName: readonly DxccEntity[];
  readonly byPrefix: readonly DxccEntity[];
}

let cached: Catalogue | undefined;

function catalogue(): Catalogue {
  if (cached) return cached;
  // Only rows on the DXCC list: a `*` row (e.g. Sicily) carries its parent's code.
  const ctyByCode = new Map(ctyTable().entities.filter((e) => e.onDxccList).map((e) => [e.adif, e]));
  const entities = enumeration('DXCC_Entity_Code').map((record) => {
    const adif = Number(record['Entity Code']);
    return toEntity(adif, record['Entity Name'] ?? '', record.Deleted === 'true', ctyByCode.get(adif));
  });
  cached = {
    byCode: new Map(entities.map((e) => [e.adif, e])),
    byName: Object.freeze([...entities].sort(compareNames)),
    byPrefix: Object.freeze([...entities].sort(comparePrefixes)),
  };
  return cached;
}

// Case-insensitive, since deleted entities keep the ADIF's upper-case names.
const nameCollator = new Intl.Collator('en', { sensitivity: 'base' });

function compareNames(a: DxccEntity, b: DxccEntity): number {
  return nameCollator.compare(a.name, b.name) || a.adif - b.adif;
}

// Plain character order, as cty.csv lists them (digits first); entities without a prefix last, by name.
function comparePrefixes(a: DxccEntity, b: DxccEntity): number {
  if (a.prefix === b.prefix) return compareNames(a, b);
  if (a.prefix === null) return 1;
  if (b.prefix === null) return -1;
  return a.prefix < b.prefix ? -1 : 1;
}

function toEntity(adif: number, adifName: string, deleted: boolean, cty: CtyEntity | undefined): DxccEntity {
  return Object.freeze({
    adif,
    name: cty?.name ?? adifName,
    adifName,
    countryName: adif === 0 ? '' : capitalizeWords(adifName),
    prefix: cty?.primaryPrefix ?? null,
    continent: cty?.continent ?? null,
    cqz: cty?.cqz ?? null,
    ituz: cty?.ituz ?? null,
    lat: cty?.lat ?? null,
    long: cty?.long ?? null,
    deleted,
  });
}

/** PHP's `ucwords(strtolower(name), "- (/")`, the original's spelling of a country. */
function capitalizeWords(name: string): string {
  return name.toLowerCase().replace(/(^|[- (/])(\p{Ll})/gu, (_, before: string, letter: string) => before + letter.toUpperCase());
}

/** The entity with this ADIF code, or undefined if the specification has no such code. */
export function dxccEntity(adif: number): DxccEntity | undefined {
  return catalogue().byCode.get(adif);
}

/** All entities, deleted ones included, ordered by name or by primary prefix. */
export function dxccEntities(order: DxccEntityOrder): readonly DxccEntity[] {
  return order === 'name' ? catalogue().byName : catalogue().byPrefix;
}
