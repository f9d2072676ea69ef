import { readFileSync } from 'node:fs';
import { dataPath } from '../paths.js';

/**
 * The ADIF 3.1.6 specification export (data/adif-3.1.6.json), read once.
 * Every catalogue in the product (fields, bands, modes, contests, DXCC codes,
 * subdivisions) derives from this one source.
 */

/** One row of an enumeration or of the field list: column header → value, all strings. */
export type SpecRecord = Readonly<Record<string, string>>;

interface SpecTable {
  Header: string[];
  Records: Record<string, SpecRecord>;
}

interface SpecDocument {
  Adif: {
    Version: string;
    DataTypes: SpecTable;
    Enumerations: Record<string, SpecTable>;
    Fields: SpecTable;
  };
}

let cached: SpecDocument['Adif'] | undefined;

function spec(): SpecDocument['Adif'] {
  cached ??= (JSON.parse(readFileSync(dataPath('adif-3.1.6.json'), 'utf8')) as SpecDocument).Adif;
  return cached;
}

/** The ADIF version the catalogue was generated from, e.g. "3.1.6". */
export function adifVersion(): string {
  return spec().Version;
}

/** Rows of a named enumeration (e.g. "Band", "Mode", "Contest_ID"), in specification order. */
export function enumeration(name: string): SpecRecord[] {
  const table = spec().Enumerations[name];
  if (!table) throw new Error(`ADIF specification has no enumeration ${name}`);
  return Object.values(table.Records);
}

/** Rows of the field list (186 fields), in specification order. */
export function fieldRecords(): SpecRecord[] {
  return Object.values(spec().Fields.Records);
}
