/**
 * Callsigns as logged: upper-case, with the slashed zero some keyboards and loggers
 * produce ("DLØABC") turned into a digit, as the original product's API does.
 */
export function normalizeCallsign(raw: string): string {
  const call = raw.trim().toUpperCase();
  return call.includes('Ø') ? call.replaceAll('Ø', '0') : call;
}

/**
 * Letters, digits, "/" and "-" only (portable and prefix forms such as "DL/G4ABC/P",
 * SWL and club suffixes with "-"), 1–32 characters, at least one letter or digit.
 * No letter-and-digit rule: logs carry special and partial calls that real
 * searches need, and the product only ever rejected other characters.
 */
const CALLSIGN = /^(?=.*[A-Z0-9])[A-Z0-9/-]{1,32}$/i;

export function isValidCallsign(call: string): boolean {
  return CALLSIGN.test(call);
}
