/**
 * Input quoted in a message: at most about `max` characters of output, with control
 * characters, DEL, C1 controls, lone surrogates and U+FFFD (what invalid UTF-8 decodes to)
 * written as escapes, so that a binary file never sends raw bytes to a terminal, a log or a
 * JSON answer, and its escapes never make a long message.
 */

const UNSAFE = /[\0-\x1f\x7f-\x9f\ud800-\udfff\ufffd\u2028\u2029]/u;
const DEFAULT_EXCERPT_CHARS = 40;

function escapeChar(char: string): string {
  if (char === '\n') return '\\n';
  if (char === '\r') return '\\r';
  if (char === '\t') return '\\t';
  const code = char.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Joins the escaped pieces until `max` characters; an ellipsis marks a cut. */
function joinPieces(pieces: Iterable<string>, max: number): string {
  let out = '';
  for (const piece of pieces) {
    if (out.length + piece.length > max) return `${out}…`;
    out += piece;
  }
  return out;
}

function* escapedChars(text: string): Generator<string> {
  // Iterating by code point keeps surrogate pairs (emoji) whole; a lone half is escaped.
  for (const char of text) yield UNSAFE.test(char) ? escapeChar(char) : char;
}

function* escapedBytes(bytes: Uint8Array): Generator<string> {
  for (const byte of bytes) yield byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : escapeChar(String.fromCharCode(byte));
}

/** `text` escaped and cut to at most `max` characters (plus an ellipsis). */
export function excerpt(text: string, max = DEFAULT_EXCERPT_CHARS): string {
  return joinPieces(escapedChars(text.length > max ? text.slice(0, max + 1) : text), max);
}

/** The first bytes of `bytes` as an escaped excerpt: printable ASCII as it is, every other byte as \xNN. */
export function byteExcerpt(bytes: Uint8Array, max = DEFAULT_EXCERPT_CHARS): string {
  return joinPieces(escapedBytes(bytes.subarray(0, max + 1)), max);
}
