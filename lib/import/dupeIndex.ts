import type pg from 'pg';
import QueryStream from 'pg-query-stream';

/**
 * The duplicate rule's keys (callsign, minute of time_on, band, main mode) of one station
 * location, as 64-bit hashes: 8 bytes per slot, no object or string per key, so a station with
 * a million QSOs costs 16 MiB.
 *
 * The table is split into segments of 64 KiB (extendible hashing): the top bits of a hash pick
 * a segment through a small directory, the low bits a slot in it (open addressing). A full
 * segment splits in two, rehashed through one reused scratch segment. Why not one table that
 * doubles: each doubling left the old arrays behind, and as they belong to the old generation,
 * only a full collection frees them, which a steady import seldom triggers: a million-QSO import
 * carried 15 MB of dead tables. Segments are never discarded, so memory is what the keys need.
 *
 * A hash match counts as a duplicate. Two different keys share a 64-bit hash with probability
 * about n²/2⁶⁵ (3·10⁻⁸ for a million keys); the unique index qso_dupe_key is the authority
 * that settles everything else (concurrent writers).
 */

/** time_on is hashed as far as the minute: 'YYYY-MM-DD HH:MM'. */
const MINUTE_LENGTH = 16;
const DEFAULT_SEGMENT_SLOTS = 1 << 13;
/** The directory is indexed by the top bits of the hash's high half... */
const HIGH_BITS = 32;
/**
 * ...of which uniform hashes use about log2(keys / 6,000): 8 for a million keys. Only keys
 * crafted to collide could go deeper; they meet an error instead of an ever larger directory.
 */
const MAX_DEPTH = 24;

/** An open-addressing table of (high, low) hash pairs, interleaved; 0:0 marks an empty slot. */
class Segment {
  readonly pairs: Uint32Array;
  count = 0;

  constructor(
    slots: number,
    /** How many top bits of the high half all its keys share. */
    public depth: number,
  ) {
    this.pairs = new Uint32Array(slots * 2);
  }

  /** Adds the pair; false if it was there already. The caller keeps a free slot. */
  insert(high: number, low: number): boolean {
    const { pairs } = this;
    const mask = pairs.length - 1;
    for (let at = (low << 1) & mask; ; at = (at + 2) & mask) {
      const atHigh = pairs[at]!;
      const atLow = pairs[at + 1]!;
      if (atHigh === 0 && atLow === 0) {
        pairs[at] = high;
        pairs[at + 1] = low;
        this.count++;
        return true;
      }
      if (atHigh === high && atLow === low) return false;
    }
  }
}

export class DupeIndex {
  /** 2^depth entries; a segment of depth d fills 2^(depth-d) neighbouring entries. */
  private directory: Segment[];
  private depth = 0;
  private count = 0;
  private readonly maxSegmentKeys: number;
  /** A split copies the segment here and rehashes from it. */
  private readonly scratch: Uint32Array;
  /** Result of the last hash() call: the two halves of a 64-bit value. */
  private hashHigh = 0;
  private hashLow = 0;

  /** `segmentSlots` (a power of two) is for tests, which want many splits from few keys. */
  constructor(private readonly segmentSlots = DEFAULT_SEGMENT_SLOTS) {
    // Slots are found by masking, and the 75 % limit must leave a free slot.
    if (segmentSlots < 4 || (segmentSlots & (segmentSlots - 1)) !== 0) throw new Error(`segment slots must be a power of two from 4, not ${segmentSlots}`);
    this.directory = [new Segment(segmentSlots, 0)];
    this.maxSegmentKeys = (segmentSlots * 3) / 4;
    this.scratch = new Uint32Array(segmentSlots * 2);
  }

  get size(): number {
    return this.count;
  }

  /** Bytes the table holds: its segments and the scratch segment. */
  get bytes(): number {
    let segments = 0;
    for (let i = 0; i < this.directory.length; i += 1 << (this.depth - this.directory[i]!.depth)) segments++;
    return (segments + 1) * this.scratch.byteLength;
  }

  /**
   * Records the key of a QSO; false if the same key was there already. `time` is
   * 'YYYY-MM-DD HH:MM[:SS]' (only the minute counts), `call` upper-case, `band` lower-case,
   * `mode` the main mode.
   */
  add(call: string, time: string, band: string, mode: string): boolean {
    this.hash(call, time, band, mode);
    const high = this.hashHigh;
    let segment = this.segmentOf(high);
    while (segment.count >= this.maxSegmentKeys) {
      this.split(segment, high);
      segment = this.segmentOf(high);
    }
    if (!segment.insert(high, this.hashLow)) return false;
    this.count++;
    return true;
  }

  private segmentOf(high: number): Segment {
    // A shift by 32 is a shift by 0 in JavaScript: depth 0 is the one-entry directory.
    return this.directory[this.depth === 0 ? 0 : high >>> (HIGH_BITS - this.depth)]!;
  }

  /** Splits `segment` (the one `high` belongs to) by its next hash bit into itself and a new one. */
  private split(segment: Segment, high: number): void {
    if (segment.depth === MAX_DEPTH) throw new Error('duplicate index: too many keys share one hash prefix');
    if (segment.depth === this.depth) this.doubleDirectory();
    const bit = HIGH_BITS - 1 - segment.depth;
    const sibling = new Segment(this.segmentSlots, ++segment.depth);
    const span = 1 << (this.depth - segment.depth);
    const first = ((high >>> (HIGH_BITS - this.depth)) & ~(2 * span - 1)) + span;
    for (let i = first; i < first + span; i++) this.directory[i] = sibling;

    const { scratch } = this;
    scratch.set(segment.pairs);
    segment.pairs.fill(0);
    segment.count = 0;
    for (let at = 0; at < scratch.length; at += 2) {
      const pairHigh = scratch[at]!;
      const pairLow = scratch[at + 1]!;
      if (pairHigh === 0 && pairLow === 0) continue;
      ((pairHigh >>> bit) & 1 ? sibling : segment).insert(pairHigh, pairLow);
    }
  }

  /** Every entry becomes two neighbours pointing to the same segment. */
  private doubleDirectory(): void {
    const doubled = new Array<Segment>(this.directory.length * 2);
    for (let i = 0; i < this.directory.length; i++) doubled[2 * i] = doubled[2 * i + 1] = this.directory[i]!;
    this.directory = doubled;
    this.depth++;
  }

  /**
   * Two 32-bit multiplicative lanes over the character codes (the cyrb53 mixing), each part
   * closed by its length so that ("AB", "C") and ("A", "BC") differ. Never 0:0, the empty slot.
   */
  private hash(call: string, time: string, band: string, mode: string): void {
    let h1 = 0xdeadbeef;
    let h2 = 0x41c6ce57;
    const parts = [call, time, band, mode];
    for (let p = 0; p < 4; p++) {
      const part = parts[p]!;
      const length = p === 1 ? Math.min(part.length, MINUTE_LENGTH) : part.length;
      for (let i = 0; i < length; i++) {
        const code = part.charCodeAt(i);
        h1 = Math.imul(h1 ^ code, 2654435761);
        h2 = Math.imul(h2 ^ code, 1597334677);
      }
      h1 = Math.imul(h1 ^ (0x10000 + length), 2654435761);
      h2 = Math.imul(h2 ^ (0x10000 + length), 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    this.hashHigh = h2 >>> 0;
    this.hashLow = h1 >>> 0;
    if (this.hashHigh === 0 && this.hashLow === 0) this.hashLow = 1;
  }
}

/**
 * Keys fetched per cursor round trip. 10,000 held 30 MB of rows and protocol buffers at once
 * (re-importing a million QSOs peaked at 157 MB instead of 126 MB); 2,000 is as fast.
 */
const KEY_BATCH_ROWS = 2_000;

/** The keys of every QSO stored for the station, read through a cursor (flat memory on the way in). */
export async function loadDupeIndex(client: pg.PoolClient, stationId: number): Promise<DupeIndex> {
  const index = new DupeIndex();
  const keys = client.query(
    new QueryStream(
      `SELECT call, to_char(time_on, 'YYYY-MM-DD HH24:MI'), band, mode FROM qso WHERE station_id = $1`,
      [stationId],
      { rowMode: 'array', batchSize: KEY_BATCH_ROWS },
    ),
  );
  for await (const row of keys as AsyncIterable<[string, string, string, string]>) index.add(row[0], row[1], row[2], row[3]);
  return index;
}
