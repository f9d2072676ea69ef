/**
 * Input quoted in a message: at most `max` characters, with control characters, DEL, C1
 * controls, lone surrogates and U+FFFD (what invalid UTF-8 decodes to) written as escapes, so
 * that a binary file never sends raw bytes to a terminal, a log or a JSON answer.
 */

const UNSAFE = /[\0-\x1f\x7f-\x9f\ud800-\udfff\ufffd\u2028\u2029]/u;
const DEFAULT_EXCERPT_CHARS = 40;

function escapeChar(char: string): string {
  const code = char.codePointAt(0)!;
  if (char === '\n') return '\\n';
  if (char === '\r') return '\\r';
  if (char === '\t') return '\\t';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` escaped and cut to `max` characters (an ellipsis marks the cut). */
export function excerpt(text: string, max = DEFAULT_EXCERPT_CHARS): string {
  const cut = text.length > max;
  const head = cut ? text.slice(0, max) : text;
  let out = '';
  // Iterating by code point keeps surrogate pairs (emoji) whole; a lone half is escaped.
  for (const char of head) out += UNSAFE.test(char) ? escapeChar(char) : char;
  return cut ? `${out}…` : out;
}

/** The first bytes of `bytes` as an escaped excerpt: printable ASCII as it is, every other byte as \xNN. */
export function byteExcerpt(bytes: Uint8Array, max = DEFAULT_EXCERPT_CHARS): string {
  let out = '';
  const end = Math.min(bytes.length, max);
  for (let i = 0; i < end; i++) {
    const byte = bytes[i]!;
    out += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : escapeChar(String.fromCharCode(byte));
  }
  return bytes.length > max ? `${out}…` : out;
}
