import { readFileSync } from 'node:fs';
import { dataPath } from '../paths.js';

/**
 * Flag emoji of the DXCC entities, from data/dxcc-flags.csv: per current entity the region it
 * lies in, its own ISO 3166-1 code where it has one (Aland Is. AX, Guernsey GG) and else its
 * country's (Canary Is. ES, Kure I. US); GB-ENG, GB-SCT and GB-WLS for the UK nations, which
 * have flag emoji of their own; UN for the UN and ITU headquarters. Entities of no country
 * (Spratly Is., Scarborough Reef, the Order of Malta) and deleted ones have no flag.
 */

const REGION = /^(?:[A-Z]{2}|GB-(?:ENG|SCT|WLS))$/;
const REGIONAL_INDICATOR_A = 0x1f1e6;
const BLACK_FLAG = 0x1f3f4;
const TAG_BASE = 0xe0000;
const CANCEL_TAG = 0xe007f;

/** The emoji of a region: two regional indicator letters, or a subdivision's tag sequence (GB-ENG). */
export function regionFlag(region: string): string {
  if (!REGION.test(region)) throw new RangeError(`not a flag region: ${region}`);
  if (region.length === 2) return String.fromCodePoint(...[...region].map((c) => REGIONAL_INDICATOR_A + c.charCodeAt(0) - 0x41));
  const tags = [...region.replace('-', '').toLowerCase()].map((c) => TAG_BASE + c.charCodeAt(0));
  return String.fromCodePoint(BLACK_FLAG, ...tags, CANCEL_TAG);
}

let cached: ReadonlyMap<number, string> | undefined;

function load(): ReadonlyMap<number, string> {
  const [header, ...lines] = readFileSync(dataPath('dxcc-flags.csv'), 'utf8').trim().split('\n');
  if (header !== 'dxcc,region') throw new Error(`data/dxcc-flags.csv: unexpected header "${header}"`);
  return new Map(
    lines.map((line, i) => {
      const [code, region] = line.split(',');
      if (!/^\d+$/.test(code ?? '') || region === undefined) throw new Error(`data/dxcc-flags.csv line ${i + 2}: malformed "${line}"`);
      return [Number(code), regionFlag(region)];
    }),
  );
}

/** The entity's flag emoji, or "" when it has none. */
export function dxccFlag(adif: number): string {
  cached ??= load();
  return cached.get(adif) ?? '';
}
