/**
 * PostgreSQL COPY text format: columns separated by tabs, rows ended by a newline, NULL as
 * \N, and backslash, backspace, form feed, newline, carriage return, tab and vertical tab inside
 * values written as \\, \b, \f, \n, \r, \t, \v.
 * The import writes it into its staging table; the export reads the server's output back.
 */

// Escaped as COPY … TO writes them, so that a row formatted here is the text the server would send (lib/qso/pageRows.ts).
const SPECIAL = /[\\\b\f\n\r\t\v]/;
const SPECIALS = /[\\\b\f\n\r\t\v]/g;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };

export const COPY_NULL = '\\N';

export function escapeCopyValue(value: string): string {
  return SPECIAL.test(value) ? value.replace(SPECIALS, (char) => ESCAPES[char]!) : value;
}

/**
 * One row of the first `columns` values, newline included. Joined rather than concatenated: `+=` builds a rope of two nodes
 * per column (about 4 KB of garbage for a QSO's 60 columns, half of all an import allocated);
 * join writes one flat string.
 */
export function formatCopyRow(values: ReadonlyArray<string | null>, columns = values.length): string {
  const cells = new Array<string>(columns);
  for (let i = 0; i < columns; i++) {
    const value = values[i];
    cells[i] = value === null || value === undefined ? COPY_NULL : escapeCopyValue(value);
  }
  return cells.join('\t') + '\n';
}

const ESCAPED = /\\(.)/g;
const UNESCAPES: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** A value as COPY … TO writes it, back to its text (the export reads rows this way). */
export function unescapeCopyValue(value: string): string {
  return value.includes('\\') ? value.replace(ESCAPED, (_, char: string) => UNESCAPES[char] ?? char) : value;
}
