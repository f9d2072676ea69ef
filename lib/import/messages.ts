/**
 * The messages of one import: each prefixed with where it happened, at most `limit` kept (a
 * million-record file with one bad field per record must not build a million strings), then one
 * closing line counting the rest. Unknown field names are reported once per input.
 */

export const DEFAULT_MESSAGE_LIMIT = 1000;

/** Where a record sits in its input: "record 12, line 340" (ADIF) or "record 12" (JSON). */
export function recordPlace(recordNo: number, line: number | null): string {
  return line === null ? `record ${recordNo}` : `record ${recordNo}, line ${line}`;
}

export class MessageLog {
  private readonly kept: string[] = [];
  private dropped = 0;
  private readonly unknownFieldsSeen = new Set<string>();

  constructor(private readonly limit = DEFAULT_MESSAGE_LIMIT) {}

  /** A message that already names its place (the ADIF reader's problems). */
  add(message: string): void {
    if (this.kept.length < this.limit) this.kept.push(message);
    else this.dropped++;
  }

  addAll(place: string, messages: readonly string[]): void {
    for (const message of messages) this.add(`${place}: ${message}`);
  }

  /**
   * Reports each unknown field name the first time it appears in this input. Only `limit`
   * names are remembered, so a hostile file with endless distinct names cannot grow the set.
   */
  addUnknownFields(place: string, names: readonly string[]): void {
    for (const name of names) {
      if (this.unknownFieldsSeen.has(name)) continue;
      if (this.unknownFieldsSeen.size < this.limit) this.unknownFieldsSeen.add(name);
      this.add(`${place}: ${name} is not an ADIF field; kept as it is (reported once)`);
    }
  }

  list(): string[] {
    return this.dropped === 0 ? [...this.kept] : [...this.kept, `... and ${this.dropped} more`];
  }
}
