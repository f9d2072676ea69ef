import type pg from 'pg';
import QueryStream from 'pg-query-stream';

/**
 * The duplicate rule's keys (callsign, minute of time_on, band, main mode) of one station
 * location, as 64-bit hashes in an open-addressing table of two Uint32Arrays: 8 bytes per
 * slot, no object or string per key, so a station with a million QSOs costs 16 MiB at most.
 *
 * A hash match counts as a duplicate. Two different keys share a 64-bit hash with probability
 * about n²/2⁶⁵ (3·10⁻⁸ for a million keys); the unique index qso_dupe_key is the authority
 * that settles everything else (concurrent writers).
 */

const MIN_CAPACITY = 1 << 12;
/** time_on is hashed as far as the minute: 'YYYY-MM-DD HH:MM'. */
const MINUTE_LENGTH = 16;

export class DupeIndex {
  private high: Uint32Array;
  private low: Uint32Array;
  private mask: number;
  private count = 0;
  /** Result of the last hash() call: the two halves of a 64-bit value. */
  private hashHigh = 0;
  private hashLow = 0;

  constructor() {
    this.high = new Uint32Array(MIN_CAPACITY);
    this.low = new Uint32Array(MIN_CAPACITY);
    this.mask = MIN_CAPACITY - 1;
  }

  get size(): number {
    return this.count;
  }

  /**
   * Records the key of a QSO; false if the same key was there already. `time` is
   * 'YYYY-MM-DD HH:MM[:SS]' (only the minute counts), `call` upper-case, `band` lower-case,
   * `mode` the main mode.
   */
  add(call: string, time: string, band: string, mode: string): boolean {
    this.hash(call, time, band, mode);
    if ((this.count + 1) * 2 > this.high.length) this.grow();
    return this.insert(this.hashHigh, this.hashLow);
  }

  private insert(h: number, l: number): boolean {
    const { high, low, mask } = this;
    for (let slot = l & mask; ; slot = (slot + 1) & mask) {
      const slotHigh = high[slot]!;
      const slotLow = low[slot]!;
      if (slotHigh === 0 && slotLow === 0) {
        high[slot] = h;
        low[slot] = l;
        this.count++;
        return true;
      }
      if (slotHigh === h && slotLow === l) return false;
    }
  }

  private grow(): void {
    const { high, low } = this;
    this.high = new Uint32Array(high.length * 2);
    this.low = new Uint32Array(low.length * 2);
    this.mask = this.high.length - 1;
    this.count = 0;
    for (let slot = 0; slot < high.length; slot++) {
      if (high[slot] !== 0 || low[slot] !== 0) this.insert(high[slot]!, low[slot]!);
    }
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

const KEY_BATCH_ROWS = 10_000;

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
