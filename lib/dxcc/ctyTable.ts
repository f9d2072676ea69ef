import { readFileSync } from 'node:fs';
import { dataPath } from '../paths.js';

/**
 * The DXCC prefix table ("country file") in data/cty.csv, parsed once on first use.
 * Longitudes and UTC offsets are converted from the file's west-positive convention to east-positive.
 */

/** Where a station is: an entity's defaults, or a prefix's after its overrides. */
export interface CtyLocation {
  readonly continent: string;
  readonly cqz: number;
  readonly ituz: number;
  readonly lat: number;
  /** East positive. */
  readonly long: number;
  /** Standard local time minus UTC in hours, e.g. 1 for Central Europe (the file stores it negated). */
  readonly utcOffset: number;
}

export interface CtyEntity extends CtyLocation {
  /** The row's primary prefix without the `*` mark, e.g. "DL", "3D2/c", "4U1V". */
  readonly primaryPrefix: string;
  readonly name: string;
  /** ADIF DXCC entity code; rows that are not on the DXCC list carry their parent entity's code. */
  readonly adif: number;
  /** False for `*` rows (e.g. Sicily, Shetland Islands): areas counted apart by other awards, not by DXCC. */
  readonly onDxccList: boolean;
}

/** One entry of an entity's prefix list: a prefix, or an exact call (`=CALL`). */
export interface CtyPrefix extends CtyLocation {
  /** Upper-case prefix or call without the `=` mark and the overrides. */
  readonly text: string;
  readonly exactCall: boolean;
  readonly entity: CtyEntity;
}

export interface CtyTable {
  readonly entities: readonly CtyEntity[];
  readonly prefixes: readonly CtyPrefix[];
}

const FIELD_COUNT = 10;

// One prefix-list entry: optional '=', the prefix or call, then any overrides in any order:
// (CQ zone) [ITU zone] <lat/long> {continent} ~UTC offset~.
const ENTRY = /^(=?)([A-Z0-9/]+)((?:\(\d+\)|\[\d+\]|<-?[\d.]+\/-?[\d.]+>|\{[A-Z]{2}\}|~-?[\d.]+~)*)$/;
const OVERRIDE = /\((\d+)\)|\[(\d+)\]|<(-?[\d.]+)\/(-?[\d.]+)>|\{([A-Z]{2})\}|~(-?[\d.]+)~/g;

/** Parses the whole text of a cty.csv file; throws on a malformed line, naming it. */
export function parseCtyCsv(text: string): CtyTable {
  const entities: CtyEntity[] = [];
  const prefixes: CtyPrefix[] = [];
  text.split('\n').forEach((rawLine, index) => {
    const line = rawLine.trim();
    if (line === '') return;
    try {
      const fields = line.split(',');
      if (fields.length !== FIELD_COUNT) throw new Error(`expected ${FIELD_COUNT} fields, found ${fields.length}`);
      const entity = parseEntity(fields);
      entities.push(entity);
      for (const entry of prefixList(fields[FIELD_COUNT - 1]!)) prefixes.push(parseEntry(entry, entity));
    } catch (error) {
      throw new Error(`cty.csv line ${index + 1}: ${(error as Error).message}`);
    }
  });
  return { entities, prefixes };
}

function parseEntity(fields: string[]): CtyEntity {
  const [prefixField, name, adif, continent, cqz, ituz, lat, westLong, utcOffset] = fields;
  const onDxccList = !prefixField.startsWith('*');
  return {
    primaryPrefix: onDxccList ? prefixField : prefixField.slice(1),
    name,
    adif: integer(adif, 'DXCC number'),
    onDxccList,
    continent,
    cqz: integer(cqz, 'CQ zone'),
    ituz: integer(ituz, 'ITU zone'),
    lat: decimal(lat, 'latitude'),
    long: eastPositive(decimal(westLong, 'longitude')),
    utcOffset: eastPositive(decimal(utcOffset, 'UTC offset')),
  };
}

function prefixList(list: string): string[] {
  if (!list.endsWith(';')) throw new Error('prefix list is not terminated by ";"');
  return list.slice(0, -1).split(' ').filter((entry) => entry !== '');
}

function parseEntry(entry: string, entity: CtyEntity): CtyPrefix {
  const match = ENTRY.exec(entry);
  if (!match) throw new Error(`malformed prefix entry "${entry}"`);
  const [, exactMark, text, overrides] = match;
  const prefix: { -readonly [K in keyof CtyLocation]: CtyLocation[K] } = {
    continent: entity.continent,
    cqz: entity.cqz,
    ituz: entity.ituz,
    lat: entity.lat,
    long: entity.long,
    utcOffset: entity.utcOffset,
  };
  for (const [, cqz, ituz, lat, westLong, continent, utcOffset] of overrides.matchAll(OVERRIDE)) {
    if (cqz !== undefined) prefix.cqz = integer(cqz, 'CQ zone override');
    if (ituz !== undefined) prefix.ituz = integer(ituz, 'ITU zone override');
    if (lat !== undefined && westLong !== undefined) {
      prefix.lat = decimal(lat, 'latitude override');
      prefix.long = eastPositive(decimal(westLong, 'longitude override'));
    }
    if (continent !== undefined) prefix.continent = continent;
    if (utcOffset !== undefined) prefix.utcOffset = eastPositive(decimal(utcOffset, 'UTC offset override'));
  }
  return { ...prefix, text, exactCall: exactMark === '=', entity };
}

function integer(text: string, what: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value)) throw new Error(`${what} "${text}" is not an integer`);
  return value;
}

function decimal(text: string, what: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new Error(`${what} "${text}" is not a number`);
  return value;
}

// `0 - x` rather than `-x` so that 0 does not become -0.
function eastPositive(westPositive: number): number {
  return 0 - westPositive;
}

let cached: CtyTable | undefined;

/** The shipped table (data/cty.csv), read and parsed on first call. */
export function ctyTable(): CtyTable {
  cached ??= parseCtyCsv(readFileSync(dataPath('cty.csv'), 'utf8'));
  return cached;
}
