import { excerpt } from './excerpt.js';
import { readDocument, type AdifItemSink } from './itemReader.js';
import type { AdifHeader, AdifParseResult, AdifProblem, AdifProblemCode } from './types.js';

/**
 * ADIF (.adi) tokenizer: a pure state machine fed Buffers in any chunking.
 *
 * It scans bytes, keeps only the unconsumed tail of the input between calls
 * (an incomplete tag or value) and decodes each value straight from the
 * chunk, so memory stays flat whatever the size of the file.
 */

export interface AdifTokenizerOptions {
  /** Largest declared field length accepted; a larger one is reported as a problem. Default 1 MiB. */
  maxFieldLength?: number;
}

export const DEFAULT_MAX_FIELD_LENGTH = 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const TAB = 0x09;
const SP = 0x20;
const HASH = 0x23;
const COLON = 0x3a;
const LT = 0x3c;
const GT = 0x3e;
const TILDE = 0x7e;

/**
 * Decodes an all-ASCII byte run. Most ADIF values are at most 8 bytes long, and
 * building those with String.fromCharCode avoids the far costlier call into
 * the runtime that Buffer decoding makes.
 */
function asciiString(buf: Buffer, s: number, e: number): string {
  switch (e - s) {
    case 0: return '';
    case 1: return String.fromCharCode(buf[s]!);
    case 2: return String.fromCharCode(buf[s]!, buf[s + 1]!);
    case 3: return String.fromCharCode(buf[s]!, buf[s + 1]!, buf[s + 2]!);
    case 4: return String.fromCharCode(buf[s]!, buf[s + 1]!, buf[s + 2]!, buf[s + 3]!);
    case 5: return String.fromCharCode(buf[s]!, buf[s + 1]!, buf[s + 2]!, buf[s + 3]!, buf[s + 4]!);
    case 6: return String.fromCharCode(buf[s]!, buf[s + 1]!, buf[s + 2]!, buf[s + 3]!, buf[s + 4]!, buf[s + 5]!);
    case 7: return String.fromCharCode(buf[s]!, buf[s + 1]!, buf[s + 2]!, buf[s + 3]!, buf[s + 4]!, buf[s + 5]!, buf[s + 6]!);
    case 8: return String.fromCharCode(buf[s]!, buf[s + 1]!, buf[s + 2]!, buf[s + 3]!, buf[s + 4]!, buf[s + 5]!, buf[s + 6]!, buf[s + 7]!);
    default: return buf.toString('latin1', s, e);
  }
}

/**
 * Fields that identify a QSO: when one of them occurs again before `<EOR>`, the writer left
 * out the `<EOR>` (or writes one record a line without any), and a new record starts there.
 */
const RECORD_KEYS: ReadonlySet<string> = new Set(['CALL', 'QSO_DATE', 'TIME_ON']);

/** Longest tag (`<` up to `>`) considered; a longer run is junk text, not a tag. */
const MAX_TAG_BYTES = 512;
/** Returned by the readers when the rest of the current unit has not arrived yet. */
const INCOMPLETE = -1;

/** Where the reader is in the document. */
const enum Phase {
  /** Before the first tag: text is the header comment. */
  Comment,
  /** After the first tag, before `<EOH>` (or the `<EOR>` showing there is no header). */
  Header,
  Records,
}

/** The three ways writers count a field's length. */
const enum LengthUnit {
  Bytes,
  CodePoints,
  Utf16Units,
}

const UNIT_BYTES = 1 << LengthUnit.Bytes;
const UNIT_CODE_POINTS = 1 << LengthUnit.CodePoints;
const UNIT_UTF16 = 1 << LengthUnit.Utf16Units;

const enum TagKind {
  Field,
  EndOfHeader,
  EndOfRecord,
}

/** An interned tag name: the upper-case string is shared by every occurrence. */
interface TagName {
  readonly hash: number;
  /** The name's bytes with ASCII letters upper-cased, for case-insensitive matching. */
  readonly upper: Uint8Array;
  readonly name: string;
  readonly kind: TagKind;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const NAME_SLOTS = 4096;

function upperAscii(byte: number): number {
  return byte >= 0x61 && byte <= 0x7a ? byte - 0x20 : byte;
}

/**
 * Open-addressing table from tag-name bytes to their upper-case string, so a
 * tag costs no allocation once its name has been seen. It stops growing at half
 * full, which bounds memory on files with endless distinct names.
 */
class TagNameTable {
  private readonly slots: Array<TagName | undefined> = new Array<TagName | undefined>(NAME_SLOTS);
  private size = 0;

  /** `hash` is FNV-1a over the name bytes with bit 0x20 cleared (see readTag). */
  resolve(buf: Buffer, start: number, end: number, hash: number): TagName {
    const mask = NAME_SLOTS - 1;
    let slot = hash & mask;
    for (let entry = this.slots[slot]; entry !== undefined; entry = this.slots[slot]) {
      if (entry.hash === hash && TagNameTable.matches(entry.upper, buf, start, end)) return entry;
      slot = (slot + 1) & mask;
    }
    const entry = TagNameTable.create(buf, start, end, hash);
    if (this.size < NAME_SLOTS / 2) {
      this.slots[slot] = entry;
      this.size++;
    }
    return entry;
  }

  private static matches(upper: Uint8Array, buf: Buffer, start: number, end: number): boolean {
    if (upper.length !== end - start) return false;
    for (let i = 0; i < upper.length; i++) {
      if (upper[i] !== upperAscii(buf[start + i]!)) return false;
    }
    return true;
  }

  private static create(buf: Buffer, start: number, end: number, hash: number): TagName {
    const upper = new Uint8Array(end - start);
    for (let i = 0; i < upper.length; i++) upper[i] = upperAscii(buf[start + i]!);
    const name = buf.toString('utf8', start, end).toUpperCase();
    const kind = name === 'EOR' ? TagKind.EndOfRecord : name === 'EOH' ? TagKind.EndOfHeader : TagKind.Field;
    return { hash, upper, name, kind };
  }
}

/** Bytes in the UTF-8 sequence a lead byte starts; stray or invalid bytes count as one. */
function sequenceLength(lead: number): number {
  if (lead < 0xc0) return 1;
  if (lead < 0xe0) return 2;
  if (lead < 0xf0) return 3;
  if (lead < 0xf8) return 4;
  return 1;
}

/** End of `count` code points from `start`, or -1 when they run past `limit`. */
function endByCodePoints(buf: Buffer, start: number, count: number, limit: number): number {
  let p = start;
  for (let n = 0; n < count; n++) {
    if (p >= limit) return -1;
    p += sequenceLength(buf[p]!);
  }
  return p > limit ? -1 : p;
}

/**
 * End of `count` UTF-16 code units from `start`; -1 when they run past `limit`,
 * -2 when the count ends inside a surrogate pair (so this reading is impossible).
 */
function endByUtf16Units(buf: Buffer, start: number, count: number, limit: number): number {
  let p = start;
  let units = 0;
  while (units < count) {
    if (p >= limit) return -1;
    const bytes = sequenceLength(buf[p]!);
    units += bytes === 4 ? 2 : 1;
    p += bytes;
  }
  if (units > count) return -2;
  return p > limit ? -1 : p;
}

function isWhitespace(byte: number): boolean {
  return byte === SP || byte === LF || byte === CR || byte === TAB;
}

/** How well a candidate value end fits what follows it. */
const enum Fit {
  /** Followed by something that cannot start the next item: not this reading. */
  None,
  /** Followed by `<` or whitespace. */
  Plausible,
  /** Followed (after optional whitespace) by a well-formed tag, or by the end of input. */
  Certain,
}

/** How far each part of the confirming lookahead (blanks, then a tag name) may run; beyond, a reading is merely plausible. */
const LOOKAHEAD_BYTES = 64;

/**
 * Judges the bytes after a candidate value end. Returns INCOMPLETE when the
 * verdict depends on input that has not arrived, so chunking never changes it.
 */
function fitAfter(buf: Buffer, end: number, final: boolean): number {
  const len = buf.length;
  if (end === len) return final ? Fit.Certain : INCOMPLETE;
  const first = buf[end]!;
  if (first !== LT && !isWhitespace(first)) return Fit.None;
  let p = end;
  const spaceLimit = end + LOOKAHEAD_BYTES;
  while (p < len && p < spaceLimit && isWhitespace(buf[p]!)) p++;
  if (p === spaceLimit) return Fit.Plausible;
  if (p === len) return final ? Fit.Certain : INCOMPLETE;
  if (buf[p] !== LT) return Fit.Plausible;
  // `<NAME>` or `<NAME:digits>` or `<NAME:digits:TYPE>`
  const nameStart = ++p;
  const nameLimit = nameStart + LOOKAHEAD_BYTES;
  while (p < len && p < nameLimit) {
    const c = buf[p]!;
    if (c === GT || c === COLON || c === LT || isWhitespace(c)) break;
    p++;
  }
  if (p === nameLimit) return Fit.Plausible;
  if (p === len) return final ? Fit.Plausible : INCOMPLETE;
  if (p === nameStart) return Fit.Plausible;
  if (buf[p] === GT) return Fit.Certain;
  if (buf[p] !== COLON) return Fit.Plausible;
  const digitsStart = ++p;
  while (p < len && p < digitsStart + 10 && buf[p]! >= 0x30 && buf[p]! <= 0x39) p++;
  if (p === len) return final ? Fit.Plausible : INCOMPLETE;
  if (p === digitsStart) return Fit.Plausible;
  const c = buf[p];
  if (c === GT) return Fit.Certain;
  if (c !== COLON) return Fit.Plausible;
  if (p + 2 >= len) return final ? Fit.Plausible : INCOMPLETE;
  return buf[p + 2] === GT ? Fit.Certain : Fit.Plausible;
}

export class AdifTokenizer {
  private readonly maxFieldLength: number;
  private readonly names = new TagNameTable();
  /** See AdifItemReader.recognized. */
  recognized = false;

  private phase = Phase.Comment;
  private ended = false;
  private bomChecked = false;

  /** 1-based line of the next unconsumed byte. */
  private line = 1;
  private atLineStart = true;
  private inCommentLine = false;

  /** Unconsumed input: the start of a tag or value whose end has not arrived. */
  private tail: Buffer[] = [];
  private tailLength = 0;
  /** Bytes the tail must reach before scanning again is worthwhile. */
  private needBytes = 0;

  private readonly commentParts: Buffer[] = [];
  private commentLength = 0;

  private fields: Record<string, string> = {};
  private fieldCount = 0;
  private recordLine = 0;
  /**
   * Fields read since one repeated in the current record: the start of the next record if a
   * CALL, QSO_DATE or TIME_ON the current record has follows among them, else folded back into
   * the current record (repeats reported, first values kept). null while nothing repeated.
   */
  private candidate: Record<string, string> | null = null;
  private candidateLines: Record<string, number> = {};
  private candidateLine = 0;
  private recordCount = 0;
  /** Problems met before the header is settled; they follow the header item. */
  private pendingProblems: Array<{ line: number; code: AdifProblemCode; text: string }> = [];

  /**
   * The length units (bit 1 << LengthUnit) consistent with the multi-byte
   * values read so far; all three until a value tells them apart.
   */
  private lengthUnits = UNIT_BYTES | UNIT_CODE_POINTS | UNIT_UTF16;

  constructor(options: AdifTokenizerOptions = {}) {
    this.maxFieldLength = options.maxFieldLength ?? DEFAULT_MAX_FIELD_LENGTH;
  }

  /** Feeds the next chunk; hands each item it completes to `sink`. */
  push(chunk: Buffer, sink: AdifItemSink): void {
    if (this.ended) throw new Error('AdifTokenizer: push() after end()');
    if (this.tailLength === 0) {
      this.scan(chunk, false, sink);
      return;
    }
    this.tail.push(chunk);
    this.tailLength += chunk.length;
    if (this.tailLength >= this.needBytes) this.scan(this.takeTail(), false, sink);
  }

  /** Signals the end of input; hands on the remaining items (at least the header, if not yet emitted). */
  end(sink: AdifItemSink): void {
    if (this.ended) return;
    this.ended = true;
    this.scan(this.takeTail(), true, sink);
    if (this.phase !== Phase.Records) this.settleHeader(this.fieldCount === 0, sink);
    if (this.fieldCount > 0) this.emitRecord(sink);
  }

  private takeTail(): Buffer {
    const buf = this.tail.length === 1 ? this.tail[0]! : Buffer.concat(this.tail, this.tailLength);
    this.tail = [];
    this.tailLength = 0;
    return buf;
  }

  private keepTail(buf: Buffer, from: number, need: number): void {
    this.tail = [buf.subarray(from)];
    this.tailLength = buf.length - from;
    this.needBytes = need;
  }

  private scan(buf: Buffer, final: boolean, out: AdifItemSink): void {
    const len = buf.length;
    let pos = 0;
    if (!this.bomChecked) {
      if (len < 3 && !final && isBomPrefix(buf)) {
        this.keepTail(buf, 0, 3);
        return;
      }
      this.bomChecked = true;
      if (len >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) pos = 3;
    }
    while (pos < len) {
      pos = this.skipText(buf, pos);
      if (pos === len) break;
      const next = this.readTag(buf, pos, final, out);
      if (next === INCOMPLETE) return; // readTag kept the tail
      pos = next;
    }
  }

  /** Consumes text up to the next `<` outside a `#` comment line; returns its position (or the end). */
  private skipText(buf: Buffer, from: number): number {
    const len = buf.length;
    let line = this.line;
    let atLineStart = this.atLineStart;
    let inComment = this.inCommentLine;
    let p = from;
    for (; p < len; p++) {
      const c = buf[p]!;
      if (c === LF) {
        line++;
        atLineStart = true;
        inComment = false;
      } else if (inComment) {
        continue;
      } else if (c === LT) {
        break;
      } else if (c === HASH && atLineStart) {
        inComment = true;
      } else if (c !== SP && c !== TAB && c !== CR) {
        atLineStart = false;
      }
    }
    this.line = line;
    this.atLineStart = atLineStart;
    this.inCommentLine = inComment;
    if (this.phase === Phase.Comment && p > from) this.appendComment(buf, from, p);
    return p;
  }

  /** The `<` at `lt` does not start a tag: it is text. */
  private junk(buf: Buffer, lt: number): number {
    this.atLineStart = false;
    if (this.phase === Phase.Comment) this.appendComment(buf, lt, lt + 1);
    return lt + 1;
  }

  private incomplete(buf: Buffer, lt: number, need: number): number {
    this.keepTail(buf, lt, need);
    return INCOMPLETE;
  }

  /**
   * Reads the tag at `lt` and its value. Returns the position after them, or
   * INCOMPLETE (having kept the tail from `lt`) when more input is needed.
   */
  private readTag(buf: Buffer, lt: number, final: boolean, out: AdifItemSink): number {
    const len = buf.length;
    const tagLimit = Math.min(len, lt + MAX_TAG_BYTES);
    const moreCanCome = !final && tagLimit === len;
    let p = lt + 1;
    let c = 0;

    // Name, hashed on the way with bit 0x20 cleared so both letter cases hash alike. Field names
    // are printable ASCII: a control or non-ASCII byte means this `<` starts no tag (binary
    // input then yields no names that would need escaping in messages).
    let hash = FNV_OFFSET;
    for (; p < tagLimit; p++) {
      c = buf[p]!;
      if (c === GT || c === COLON || c === LT || c < SP || c > TILDE) break;
      hash = Math.imul(hash ^ (c & 0xdf), FNV_PRIME);
    }
    if (p === tagLimit) return moreCanCome ? this.incomplete(buf, lt, len - lt + 1) : this.junk(buf, lt);
    if (c !== GT && c !== COLON) return this.junk(buf, lt);
    const nameEnd = p;

    if (c === GT) {
      if (nameEnd === lt + 1) return this.junk(buf, lt);
      this.enterHeaderPhase();
      this.atLineStart = false;
      const tag = this.names.resolve(buf, lt + 1, nameEnd, hash);
      if (tag.kind !== TagKind.Field) this.endSection(tag.kind, out);
      return p + 1; // a field tag without a length carries nothing: ignored
    }

    // Length: digits, optionally surrounded by blanks.
    const lengthStart = ++p;
    let length = 0;
    let digits = 0;
    let malformed = false;
    let blankAfterDigits = false;
    for (; p < tagLimit; p++) {
      c = buf[p]!;
      if (c >= 0x30 && c <= 0x39) {
        if (blankAfterDigits) malformed = true;
        length = length * 10 + (c - 0x30);
        digits++;
      } else if (c === GT || c === COLON || c === LT || c === LF) {
        break;
      } else if (c === SP || c === TAB) {
        if (digits > 0) blankAfterDigits = true;
      } else {
        malformed = true;
      }
    }
    if (p === tagLimit) return moreCanCome ? this.incomplete(buf, lt, len - lt + 1) : this.junk(buf, lt);
    if (c === LT || c === LF) return this.junk(buf, lt);
    const lengthEnd = p;

    // Optional data type indicator, ignored.
    if (c === COLON) {
      for (p++; p < tagLimit; p++) {
        c = buf[p]!;
        if (c === GT || c === LT || c === LF) break;
      }
      if (p === tagLimit) return moreCanCome ? this.incomplete(buf, lt, len - lt + 1) : this.junk(buf, lt);
      if (c !== GT) return this.junk(buf, lt);
    }

    const valueStart = p + 1;
    this.enterHeaderPhase();
    this.atLineStart = false;
    const tagLine = this.line;
    if (nameEnd === lt + 1) {
      this.report(tagLine, 'missing_name', `a tag has a length but no field name`, out);
      return valueStart;
    }
    const tag = this.names.resolve(buf, lt + 1, nameEnd, hash);
    if (tag.kind !== TagKind.Field) {
      this.endSection(tag.kind, out);
      return valueStart;
    }
    if (malformed || digits === 0) {
      const text = excerpt(buf.toString('utf8', lengthStart, lengthEnd));
      this.report(tagLine, 'invalid_length', `field ${tag.name} has an invalid length '${text}'`, out);
      return valueStart;
    }
    if (digits > 15 || length > this.maxFieldLength) {
      const text = excerpt(buf.toString('latin1', lengthStart, lengthEnd).trim());
      this.report(tagLine, 'length_too_large', `field ${tag.name} declares length ${text}, more than the maximum of ${this.maxFieldLength}`, out);
      return valueStart;
    }

    let end = valueStart + length;
    if (end > len) {
      if (!final) return this.incomplete(buf, lt, end - lt);
      this.report(tagLine, 'truncated_value', `field ${tag.name} declares length ${length} but the input ends ${len - valueStart} bytes later`, out);
      return valueStart;
    }

    let high = 0;
    let newlines = 0;
    for (let i = valueStart; i < end; i++) {
      const b = buf[i]!;
      high |= b;
      if (b === LF) newlines++;
    }
    let value: string;
    if (high < 0x80) {
      value = asciiString(buf, valueStart, end);
    } else {
      end = this.multibyteValueEnd(buf, valueStart, length, final);
      // Waiting for twice the tail, not one more byte, before judging again: a long value that
      // arrives in small chunks is then rescanned a logarithmic number of times, not once a chunk.
      if (end === INCOMPLETE) return this.incomplete(buf, lt, 2 * (len - lt));
      value = buf.toString('utf8', valueStart, end);
      newlines = 0;
      for (let i = valueStart; i < end; i++) if (buf[i] === LF) newlines++;
    }
    this.line += newlines;
    this.addField(tag.name, value, tagLine, out);
    return end;
  }

  /** Adds a field to the record being read, watching for repeats (see `candidate`). */
  private addField(name: string, value: string, line: number, out: AdifItemSink): void {
    const candidate = this.candidate;
    if (candidate === null) {
      const existing = this.fields[name];
      if (existing === undefined) {
        this.fields[name] = value;
        if (this.fieldCount++ === 0) this.recordLine = line;
        return;
      }
      // An empty value carries nothing: it neither overwrites nor is worth a new record.
      if (existing === '') this.fields[name] = value;
      if (existing === '' || value === '') return;
      this.candidate = { [name]: value };
      this.candidateLines = { [name]: line };
      this.candidateLine = line;
    } else if (candidate[name] !== undefined) {
      // A repeat among the candidate's own fields: it was no record start after all.
      this.foldCandidate(out);
      this.addField(name, value, line, out);
      return;
    } else {
      candidate[name] = value;
      this.candidateLines[name] = line;
    }
    if (RECORD_KEYS.has(name) && this.fields[name] !== undefined) this.splitRecord(name, out);
  }

  /** The candidate becomes a record of its own: the current one ended without `<EOR>`. */
  private splitRecord(key: string, out: AdifItemSink): void {
    const next = this.candidate!;
    const line = this.candidateLine;
    this.candidate = null;
    if (this.phase !== Phase.Records) this.settleHeader(false, out);
    this.emitRecord(out);
    this.fields = next;
    this.fieldCount = Object.keys(next).length;
    this.recordLine = line;
    this.report(line, 'record_split', `${key} occurs again before <EOR>: read as the start of a new record`, out);
  }

  /** Folds the candidate back into the current record: its repeats are reported, the first values kept. */
  private foldCandidate(out: AdifItemSink): void {
    const candidate = this.candidate;
    if (candidate === null) return;
    this.candidate = null;
    for (const [name, value] of Object.entries(candidate)) {
      const existing = this.fields[name];
      if (existing === undefined || existing === '') {
        if (existing === undefined) this.fieldCount++;
        this.fields[name] = value;
      } else if (value !== '' && value !== existing) {
        const text = `field ${name} occurs twice in one record: the first value '${excerpt(existing)}' is kept, '${excerpt(value)}' is dropped`;
        this.report(this.candidateLines[name]!, 'repeated_field', text, out);
      }
    }
    this.candidateLines = {};
  }

  /**
   * End of a value with non-ASCII bytes whose declared length may count bytes,
   * code points or UTF-16 units. Each reading is judged by what follows it: the
   * best fit wins; among equal fits, a unit the file has used so far; then the
   * shortest value, since a longer reading that also fits has usually
   * swallowed the separator after the value.
   */
  private multibyteValueEnd(buf: Buffer, start: number, length: number, final: boolean): number {
    const len = buf.length;
    const ends = [start + length, endByCodePoints(buf, start, length, len), endByUtf16Units(buf, start, length, len)];
    let best = -1;
    let bestFit: number = Fit.None;
    let bestKnown = false;
    for (let unit = 0; unit < ends.length; unit++) {
      const end = ends[unit]!;
      if (end === -1 && !final) return INCOMPLETE;
      if (end < 0) continue;
      const fit = fitAfter(buf, end, final);
      if (fit === INCOMPLETE) return INCOMPLETE;
      if (fit === Fit.None) continue;
      const known = (this.lengthUnits & (1 << unit)) !== 0;
      const better =
        best < 0 || fit > bestFit || (fit === bestFit && (known !== bestKnown ? known : end < ends[best]!));
      if (better) {
        best = unit;
        bestFit = fit;
        bestKnown = known;
      }
    }
    if (best < 0) {
      // Nothing fits: junk follows the value. Take an end that cuts no character.
      const byCodePoints = ends[LengthUnit.CodePoints]!;
      if ((this.lengthUnits & UNIT_BYTES) === 0 && byCodePoints >= 0) return byCodePoints;
      return bytesEndWithoutSplit(buf, start + length);
    }
    const end = ends[best]!;
    let agreeing = 0;
    for (let unit = 0; unit < ends.length; unit++) if (ends[unit] === end) agreeing |= 1 << unit;
    this.lengthUnits = this.lengthUnits & agreeing || agreeing;
    return end;
  }

  private appendComment(buf: Buffer, from: number, to: number): void {
    const room = this.maxFieldLength - this.commentLength;
    if (room <= 0) return;
    const part = Buffer.from(buf.subarray(from, Math.min(to, from + room)));
    this.commentParts.push(part);
    this.commentLength += part.length;
  }

  private enterHeaderPhase(): void {
    if (this.phase === Phase.Comment) this.phase = Phase.Header;
  }

  private endSection(kind: TagKind, out: AdifItemSink): void {
    if (kind === TagKind.EndOfHeader) {
      this.recognized = true;
      if (this.phase === Phase.Header) this.settleHeader(true, out);
      return;
    }
    if (this.phase !== Phase.Records) this.settleHeader(false, out);
    if (this.fieldCount > 0) this.emitRecord(out);
  }

  /**
   * Emits the header item and the problems held back for it. Without `<EOH>`
   * (hasHeader false) the fields read so far belong to the first record instead.
   */
  private settleHeader(hasHeader: boolean, out: AdifItemSink): void {
    if (hasHeader) this.foldCandidate(out);
    const comment = Buffer.concat(this.commentParts, this.commentLength).toString('utf8').trim();
    this.commentParts.length = 0;
    const header: AdifHeader = { comment, fields: hasHeader ? this.fields : {} };
    if (hasHeader) {
      this.fields = {};
      this.fieldCount = 0;
    }
    out({ kind: 'header', header });
    this.phase = Phase.Records;
    for (const pending of this.pendingProblems) this.pushProblem(hasHeader ? 0 : 1, pending.line, pending.code, pending.text, out);
    this.pendingProblems = [];
  }

  private emitRecord(out: AdifItemSink): void {
    this.foldCandidate(out);
    this.recognized = true;
    out({ kind: 'record', fields: this.fields, recordNo: ++this.recordCount, line: this.recordLine });
    this.fields = {};
    this.fieldCount = 0;
  }

  /** Reports a problem in the record being read; until the header is settled it is held back. */
  private report(line: number, code: AdifProblemCode, text: string, out: AdifItemSink): void {
    if (this.phase === Phase.Records) this.pushProblem(this.recordCount + 1, line, code, text, out);
    else this.pendingProblems.push({ line, code, text });
  }

  private pushProblem(recordNo: number, line: number, code: AdifProblemCode, text: string, out: AdifItemSink): void {
    const where = recordNo === 0 ? 'header' : `record ${recordNo}`;
    const problem: AdifProblem = { code, recordNo, line, message: `${where}, line ${line}: ${text}` };
    out({ kind: 'problem', problem });
  }
}

function isBomPrefix(buf: Buffer): boolean {
  const bom = [0xef, 0xbb, 0xbf];
  for (let i = 0; i < buf.length; i++) if (buf[i] !== bom[i]) return false;
  return true;
}

/** Moves a byte end forward past continuation bytes so that no character is cut. */
function bytesEndWithoutSplit(buf: Buffer, end: number): number {
  let p = end;
  while (p < buf.length && (buf[p]! & 0xc0) === 0x80) p++;
  return p;
}

/** Reads a whole ADIF document at once. */
export function parseAdif(input: string | Buffer, options?: AdifTokenizerOptions): AdifParseResult {
  return readDocument(new AdifTokenizer(options), input);
}
