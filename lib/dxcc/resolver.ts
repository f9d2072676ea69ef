import { ctyTable, type CtyPrefix } from './ctyTable.js';

/**
 * Callsign → DXCC entity, from the prefix table in data/cty.csv: exact calls first,
 * then portable forms, then the longest matching prefix.
 */

export interface DxccMatch {
  readonly adif: number;
  /** The cty.csv row's name; for a row not on the DXCC list (e.g. Sicily) `adif` is its parent entity's. */
  readonly name: string;
  /** The row's primary prefix, e.g. "DL", "KH6", "IT9". */
  readonly prefix: string;
  readonly continent: string;
  readonly cqz: number;
  readonly ituz: number;
  readonly lat: number;
  /** East positive. */
  readonly long: number;
}

interface Lookup {
  readonly exactCalls: ReadonlyMap<string, DxccMatch>;
  readonly prefixes: PrefixTrie;
}

let cached: Lookup | undefined;

function lookup(): Lookup {
  if (cached) return cached;
  const exactCalls = new Map<string, DxccMatch>();
  const prefixes = new PrefixTrie();
  for (const entry of ctyTable().prefixes) {
    // The same call may sit in a DXCC row and in a `*` row of the same entity
    // (e.g. GB3LER: Scotland and Shetland Islands): the `*` row is the more precise.
    const replace = !entry.entity.onDxccList;
    if (!entry.exactCall) prefixes.insert(entry.text, toMatch(entry), replace);
    else if (replace || !exactCalls.has(entry.text)) exactCalls.set(entry.text, toMatch(entry));
  }
  cached = { exactCalls, prefixes };
  return cached;
}

function toMatch(entry: CtyPrefix): DxccMatch {
  const { adif, name, primaryPrefix } = entry.entity;
  const { continent, cqz, ituz, lat, long } = entry;
  return Object.freeze({ adif, name, prefix: primaryPrefix, continent, cqz, ituz, lat, long });
}

// Characters of a normalised callsign: A-Z, 0-9 and '/'.
const SYMBOLS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/';
const SYMBOL_OF_CODE = new Int8Array(128).fill(-1);
for (let i = 0; i < SYMBOLS.length; i++) SYMBOL_OF_CODE[SYMBOLS.charCodeAt(i)] = i;

/**
 * Prefix trie over character codes in one flat array: a longest-prefix search walks
 * the call once without building substrings. Node 0 is the root; child index 0 means none.
 */
class PrefixTrie {
  private children = new Int32Array(64 * SYMBOLS.length);
  private readonly matches: (DxccMatch | undefined)[] = [undefined];

  /** Adds a prefix; an existing entry for the same prefix is kept unless `replace`. */
  insert(prefix: string, match: DxccMatch, replace: boolean): void {
    let node = 0;
    for (let i = 0; i < prefix.length; i++) {
      const slot = node * SYMBOLS.length + symbolAt(prefix, i);
      if (this.children[slot] === 0) this.children[slot] = this.addNode();
      node = this.children[slot]!;
    }
    if (replace || !this.matches[node]) this.matches[node] = match;
  }

  longestMatch(text: string): DxccMatch | null {
    let node = 0;
    let best: DxccMatch | null = null;
    for (let i = 0; i < text.length; i++) {
      node = this.children[node * SYMBOLS.length + symbolAt(text, i)]!;
      if (node === 0) break;
      best = this.matches[node] ?? best;
    }
    return best;
  }

  private addNode(): number {
    const node = this.matches.length;
    this.matches.push(undefined);
    if ((node + 1) * SYMBOLS.length > this.children.length) {
      const grown = new Int32Array(this.children.length * 2);
      grown.set(this.children);
      this.children = grown;
    }
    return node;
  }
}

function symbolAt(text: string, index: number): number {
  const symbol = SYMBOL_OF_CODE[text.charCodeAt(index)] ?? -1;
  if (symbol < 0) throw new Error(`unexpected character in "${text}"`);
  return symbol;
}

const WELL_FORMED = /^[A-Z0-9]+(?:\/[A-Z0-9]+)*$/;
// A home call: ends in a digit followed by letters (G4ABC, 4U1UN, VP2E); a bare prefix (DL, KH6) does not.
const CALL_SHAPE = /^[A-Z0-9]*[0-9][A-Z]+$/;
const NO_ENTITY_SUFFIXES = new Set(['MM', 'AM']); // maritime and aeronautical mobile
// Portable, mobile, second address, beacon: short enough to be mistaken for prefixes (M is England, B China).
const OPERATING_SUFFIXES = new Set(['P', 'M', 'A', 'B']);

/** The DXCC entity a callsign counts for, or null (maritime/aeronautical mobile, unknown prefix, malformed). */
export function resolveCallsign(call: string): DxccMatch | null {
  const normalised = normalise(call);
  if (normalised === null) return null;
  const { exactCalls } = lookup();
  const exact = exactCalls.get(normalised);
  if (exact) return exact;
  return normalised.includes('/') ? resolveCompound(normalised) : longestPrefixMatch(normalised);
}

// Calls from logs are usually already clean: test first, copy only when needed.
function normalise(call: string): string | null {
  if (WELL_FORMED.test(call)) return call;
  const normalised = call.trim().toUpperCase().replaceAll('Ø', '0');
  return WELL_FORMED.test(normalised) ? normalised : null;
}

// DL/G4ABC, G4ABC/DL, W1AW/KH6, VP2E/K1ABC, G4ABC/P, W1AW/4, DL/G4ABC/P ...
// Walks the parts with indexOf rather than split(), which costs more than the rest of the resolution.
function resolveCompound(call: string): DxccMatch | null {
  let end = call.indexOf('/');
  const first = call.slice(0, end);
  let second: string | undefined;
  let droppedSuffix = false;
  while (end < call.length) {
    const start = end + 1;
    end = call.indexOf('/', start);
    if (end < 0) end = call.length;
    const part = call.slice(start, end);
    if (NO_ENTITY_SUFFIXES.has(part)) return null;
    if (isIgnoredSuffix(part)) droppedSuffix = true;
    else if (second === undefined) second = part;
    else return null; // more than one place: DL/G4ABC/KH6
  }
  if (second === undefined) return resolvePart(first);
  // An exact call written with a suffix, e.g. 3Y/LB5SH/P for =3Y/LB5SH.
  const exact = droppedSuffix ? lookup().exactCalls.get(`${first}/${second}`) : undefined;
  return exact ?? resolvePart(locationPart(first, second));
}

// Suffixes that say how, not where, the station operates. Digits alone are a call-area
// change inside the home entity (W1AW/4). A prefix written after a call has a digit or at
// most two letters (/KH6, /DL, /F), so longer letters-only parts (/QRP, /ANT) are operating suffixes.
function isIgnoredSuffix(part: string): boolean {
  if (OPERATING_SUFFIXES.has(part)) return true;
  const digits = digitCount(part);
  return digits === part.length || (digits === 0 && part.length > 2);
}

function digitCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) count++;
  }
  return count;
}

// Of a home call and a prefix, the prefix decides; if both or neither look like a call,
// the shorter one is the prefix, and on a tie the first (the CEPT form DL/G4ABC).
function locationPart(first: string, second: string): string {
  const firstIsCall = CALL_SHAPE.test(first);
  if (firstIsCall !== CALL_SHAPE.test(second)) return firstIsCall ? second : first;
  return second.length < first.length ? second : first;
}

function resolvePart(part: string): DxccMatch | null {
  return lookup().exactCalls.get(part) ?? longestPrefixMatch(part);
}

function longestPrefixMatch(text: string): DxccMatch | null {
  return lookup().prefixes.longestMatch(text);
}
