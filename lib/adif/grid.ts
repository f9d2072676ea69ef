/**
 * Maidenhead locators: field (A–R), square (0–9), subsquare (A–X), extended square
 * (0–9), extended subsquare (A–X), i.e. 2, 4, 6, 8 or 10 characters. Stored
 * upper-cased throughout, as the original product does (JO62qm → JO62QM).
 */

const LOCATOR = /^[A-R]{2}(?:\d{2}(?:[A-X]{2}(?:\d{2}(?:[A-X]{2})?)?)?)?$/;

/** GRIDSQUARE_EXT: characters 9–10 (letters A–X) and optionally 11–12 (digits). */
const LOCATOR_EXTENSION = /^[A-X]{2}(?:\d{2})?$/;

/** VUCC_GRIDS entries: 4 characters (6 are allowed since ADIF 3.1.6). */
const VUCC_GRID = /^[A-R]{2}\d{2}(?:[A-X]{2})?$/;

/** A locator of 2–10 characters, upper-cased, or null when it is not one. */
export function normalizeGrid(raw: string): string | null {
  const grid = raw.trim().toUpperCase();
  return LOCATOR.test(grid) ? grid : null;
}

export function isValidGrid(raw: string): boolean {
  return normalizeGrid(raw) !== null;
}

/**
 * A GRIDSQUARE_EXT value, upper-cased, or null. ADIF says characters beyond the
 * fourth must be ignored on import, so they are cut off.
 */
export function normalizeGridExtension(raw: string): string | null {
  const extension = raw.trim().slice(0, 4).toUpperCase();
  return LOCATOR_EXTENSION.test(extension) ? extension : null;
}

/**
 * A VUCC_GRIDS list ("EM98,fm08, EM97") → "EM98,FM08,EM97", or null if any entry is
 * not a 4- or 6-character locator. Empty entries (a trailing comma) are ignored.
 */
export function normalizeGridList(raw: string): string | null {
  const grids: string[] = [];
  for (const entry of raw.split(',')) {
    const grid = entry.trim().toUpperCase();
    if (grid === '') continue;
    if (!VUCC_GRID.test(grid)) return null;
    grids.push(grid);
  }
  return grids.length > 0 ? grids.join(',') : null;
}
