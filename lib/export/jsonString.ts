/** What each byte becomes inside a JSON string: itself (null), or its escape. */
export const JSON_ESCAPES: ReadonlyArray<Buffer | null> = Array.from({ length: 256 }, (_, byte) => {
  if (byte === 0x22) return Buffer.from('\\"');
  if (byte === 0x5c) return Buffer.from('\\\\');
  if (byte === 0x0a) return Buffer.from('\\n');
  if (byte === 0x0d) return Buffer.from('\\r');
  if (byte === 0x09) return Buffer.from('\\t');
  if (byte < 0x20) return Buffer.from(`\\u${byte.toString(16).padStart(4, '0')}`);
  return null;
});

/** The most bytes one byte becomes inside a JSON string (a control byte as `\u00XX`). */
export const JSON_STRING_GROWTH = 6;

/**
 * UTF-8 bytes as the inside of a JSON string: runs without anything to escape are copied as
 * they are (UTF-8 sequences never contain a byte below 0x80), escapes put in between.
 */
export function jsonStringBytes(input: Buffer): Buffer {
  const pieces: Buffer[] = [];
  let runStart = 0;
  for (let i = 0; i < input.length; i++) {
    const escape = JSON_ESCAPES[input[i]!]!;
    if (escape === null) continue;
    if (i > runStart) pieces.push(input.subarray(runStart, i));
    pieces.push(escape);
    runStart = i + 1;
  }
  if (runStart === 0) return input;
  if (runStart < input.length) pieces.push(input.subarray(runStart));
  return Buffer.concat(pieces);
}
