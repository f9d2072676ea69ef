import { jsonParser, type Token } from 'stream-json/parser.js';

/** A stream-json parser as a function: text in (or END_OF_INPUT at the end), tokens out. */
export type Tokenizer = (input: string | symbol) => { values: Token[] } | symbol;

/** Flush marker of stream-chain's flushable functions, which stream-json's parser is. */
export const END_OF_INPUT = Symbol.for('object-stream.none');

/** A string value whose closing quote is not this near its opening one is read by LongStringReader. */
const LONG_STRING = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * A JSON tokenizer for request bodies: stream-json's parser (keys and numbers packed, one token
 * each; strings in chunks, so that a long one can be diverted), except that a long string value
 * (an ADIF log sent inside JSON: hundreds of megabytes) is read here, a chunk of the input at a
 * time: its text comes out as one `stringChunk` per piece of input, decoded by the engine's
 * JSON.parse, instead of one token per 256 characters and one per escape (three million tokens
 * for a million-QSO log, a fifth of the import's CPU). stream-json sees the rest of the
 * document, the string's quotes included, so its state, tokens and errors are as they were.
 */
export function createTokenizer(): Tokenizer {
  const parse = jsonParser({ packKeys: true, streamKeys: false, packNumbers: true, streamNumbers: false, packStrings: false }) as unknown as Tokenizer;
  const quotes = new QuoteTracker();
  let longString: LongStringReader | null = null;

  return (input) => {
    if (typeof input === 'symbol') return parse(input);
    const values: Token[] = [];
    const pass = (text: string) => {
      const output = parse(text);
      if (typeof output !== 'symbol') for (const token of output.values) values.push(token);
    };
    let at = 0;
    while (at < input.length) {
      if (longString !== null) {
        const read = longString.read(input, at);
        if (read.text !== '') values.push({ name: 'stringChunk', value: read.text });
        if (read.closingQuote === -1) break;
        // The closing quote and what follows go to stream-json, still inside the string.
        longString = null;
        quotes.closingQuoteNext();
        at = read.closingQuote;
        continue;
      }
      const opening = quotes.nextLongStringStart(input, at, LONG_STRING);
      if (opening === -1) {
        pass(at === 0 ? input : input.slice(at));
        break;
      }
      const before = values.length;
      pass(input.slice(at, opening + 1));
      at = opening + 1;
      // Only a value: a key's text stream-json must read itself (it packs keys).
      if (values.length > before && values.at(-1)!.name === 'startString') longString = new LongStringReader();
    }
    return values.length === 0 ? END_OF_INPUT : { values };
  };
}

/**
 * Where strings begin and end in the text stream-json reads, so that a long string's opening
 * quote can be found: a scan of that text (a few members, not the long string itself).
 */
class QuoteTracker {
  private inString = false;
  private escaped = false;

  /**
   * The index of the next opening quote at or after `from` whose closing quote is not within
   * `near` characters of it in `text`, or -1 (the scan's state then covers all of `text`).
   */
  nextLongStringStart(text: string, from: number, near: number): number {
    for (let i = from; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (this.escaped) this.escaped = false;
      else if (this.inString) {
        if (code === BACKSLASH) this.escaped = true;
        else if (code === QUOTE) this.inString = false;
      } else if (code === QUOTE) {
        this.inString = true;
        const closing = text.indexOf('"', i + 1);
        if (closing === -1 || closing - i > near) return i;
      }
    }
    return -1;
  }

  /** A long string was read up to its closing quote, which the scan reads next. */
  closingQuoteNext(): void {
    this.inString = true;
    this.escaped = false;
  }
}

/** A string's text after its opening quote, piece by piece, decoded; escapes split between pieces are held back. */
class LongStringReader {
  /** Undecoded text held from the last piece: an escape it cut, or a high surrogate's escape. */
  private held = '';

  /**
   * Reads `input` from `from`: the decoded text up to the closing quote or the end, and the
   * closing quote's index (-1 when the string goes on).
   */
  read(input: string, from: number): { text: string; closingQuote: number } {
    const closingQuote = closingQuoteIndex(input, from, this.held);
    let raw = this.held + input.slice(from, closingQuote === -1 ? input.length : closingQuote);
    this.held = '';
    if (closingQuote === -1) {
      const keep = heldTail(raw);
      this.held = raw.slice(raw.length - keep);
      raw = raw.slice(0, raw.length - keep);
    }
    return { text: decode(raw), closingQuote };
  }
}

/** The first quote at or after `from` that no backslash escapes (`held` comes before input[from]), or -1. */
function closingQuoteIndex(input: string, from: number, held: string): number {
  for (let quote = input.indexOf('"', from); quote !== -1; quote = input.indexOf('"', quote + 1)) {
    let backslashes = 0;
    for (let i = quote - 1; i >= from && input.charCodeAt(i) === BACKSLASH; i--) backslashes++;
    if (backslashes === quote - from) for (let i = held.length - 1; i >= 0 && held.charCodeAt(i) === BACKSLASH; i--) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}

/**
 * How many characters at the end of a piece's raw text must wait for the next piece: an escape
 * cut short (`\`, `\u12`), and before it a whole `\uD83D` whose low surrogate may come next
 * (decoded apart, the pair would reach the import as two replacement characters).
 */
function heldTail(raw: string): number {
  let end = raw.length;
  const cut = escapeAt(raw, end);
  if (cut !== null && (cut.length === 1 || (cut[1] === 'u' && cut.length < 6))) end -= cut.length;
  const last = escapeAt(raw, end);
  if (last !== null && last.length === 6 && /^\\u[dD][89abAB]/.test(last)) end -= 6;
  return raw.length - end;
}

/** The escape that starts within the last six characters before `end` and runs to it, or null. */
function escapeAt(raw: string, end: number): string | null {
  for (let i = end - 1; i >= Math.max(0, end - 6); i--) {
    if (raw.charCodeAt(i) !== BACKSLASH) continue;
    let before = 0;
    for (let j = i - 1; j >= 0 && raw.charCodeAt(j) === BACKSLASH; j--) before++;
    // After an odd run of backslashes this one is escaped itself: the escape starts before it.
    if (before % 2 === 1) continue;
    return raw.slice(i, end);
  }
  return null;
}

/** JSON string content (no quotes around it) decoded, with stream-json's error for what is not valid. */
function decode(raw: string): string {
  if (raw.indexOf('\\') === -1 && !/[\u0000-\u001f]/.test(raw)) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    throw new Error('Parser cannot parse input: escaped characters');
  }
}
