/**
 * The messages of one import, grouped by kind: a WSJT-X log whose 185 records all carry
 * TX_PWR "QDX" gives one line with a count and the first records, not 185 lines that bury the
 * real problems. A kind is the message without its place, quoted values and numbers; the line
 * shows the first message of the kind. At most `limit` lines are kept (a million-record file
 * with a different problem per record must not build a million strings), then one closing
 * line counting the rest. Unknown field names are reported once per input.
 */

export const DEFAULT_MESSAGE_LIMIT = 1000;
/**
 * Bytes of messages a summary carries at most, whatever the door (HTTP answer, import job, CLI,
 * v1): a 10,000-record report with a problem per record still answers a page a person reads.
 */
export const MESSAGES_MAX_BYTES = 16 * 1024;
/** Characters of one line at most (a first message quotes values, each cut to a few dozen). */
const LINE_MAX_CHARS = 800;
/** Places listed on a grouped line. */
const PLACES_SHOWN = 5;

/** Where a record sits in its input: "record 12, line 340" (ADIF) or "record 12" (JSON). */
export function recordPlace(recordNo: number, line: number | null): string {
  return line === null ? `record ${recordNo}` : `record ${recordNo}, line ${line}`;
}

/** The place a reader's message starts with ("record 3, line 12: …", "line 4: …"). */
const LEADING_PLACE = /^((?:record \d+, )?line \d+|record \d+): /;
const QUOTED = /"(?:[^"\\]|\\.)*"/g;
const NUMBER = /\d+(?:\.\d+)?/g;

function kindOf(text: string): string {
  return text.replace(QUOTED, '""').replace(NUMBER, '#');
}

interface MessageGroup {
  /** The first message of the kind, place included. */
  readonly first: string;
  readonly places: string[];
  count: number;
}

export class MessageLog {
  private readonly lines: MessageGroup[] = [];
  private readonly groups = new Map<string, MessageGroup>();
  private dropped = 0;
  private readonly unknownFieldsSeen = new Set<string>();

  constructor(private readonly limit = DEFAULT_MESSAGE_LIMIT) {}

  /** A message that names its place itself (the ADIF reader's problems), grouped by kind. */
  add(message: string): void {
    const match = LEADING_PLACE.exec(message);
    if (match === null) this.group(kindOf(message), message, '');
    else this.group(kindOf(message.slice(match[0].length)), message, match[1]!);
  }

  addAll(place: string, messages: readonly string[]): void {
    for (const message of messages) this.group(kindOf(message), `${place}: ${message}`, place);
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

  private group(kind: string, message: string, place: string): void {
    const known = this.groups.get(kind);
    if (known !== undefined) {
      known.count++;
      if (known.places.length < PLACES_SHOWN) known.places.push(place);
      return;
    }
    if (this.lines.length >= this.limit) {
      this.dropped++;
      return;
    }
    const group: MessageGroup = { first: message, places: [place], count: 1 };
    this.lines.push(group);
    this.groups.set(kind, group);
  }

  list(): string[] {
    const lines = this.lines.map(({ first, places, count }) => {
      if (count === 1) return first;
      const more = count > places.length ? '; …' : '';
      return `${first} [${count} times: ${places.join('; ')}${more}]`;
    });
    return this.dropped === 0 ? lines : [...lines, `... and ${this.dropped} more`];
  }
}

/**
 * `lines` cut to MESSAGES_MAX_BYTES (UTF-8), each line to LINE_MAX_CHARS; what does not fit is
 * counted in a closing line.
 */
export function boundMessages(lines: readonly string[], maxBytes = MESSAGES_MAX_BYTES): string[] {
  const kept: string[] = [];
  let bytes = 0;
  for (const [index, full] of lines.entries()) {
    const line = full.length > LINE_MAX_CHARS ? `${full.slice(0, LINE_MAX_CHARS)}…` : full;
    // 4 bytes a line for its JSON quotes and comma; 64 kept for the closing line.
    bytes += Buffer.byteLength(line, 'utf8') + 4;
    if (bytes > maxBytes - 64) {
      kept.push(`... and ${lines.length - index} more message lines`);
      break;
    }
    kept.push(line);
  }
  return kept;
}
