// Text and numbers as a radio amateur writes them: UTC times, MHz in forms, Hz in the API.

/** Hz (integer) → "14.074" MHz text; "" for none. */
export function mhz(hz) {
  if (hz === null || hz === undefined || hz === '' || Number(hz) === 0) return '';
  return String(Number(hz) / 1e6);
}

/** "14.074" MHz text → Hz (integer), null for blank; NaN for text that is not a number. */
export function hz(mhzText) {
  const text = String(mhzText ?? '').trim().replace(',', '.');
  if (!text) return null;
  if (!/^\d+(\.\d+)?$/.test(text)) return NaN;
  return Math.round(Number(text) * 1e6);
}

/** "2026-12-06 14:03:00" → "2026-12-06 14:03"; an ISO timestamp likewise, in UTC. */
export function utc(value) {
  if (!value) return '';
  const text = String(value).replace('T', ' ');
  return text.slice(0, 16);
}

/** Now in UTC as {date: "YYYY-MM-DD", time: "HH:MM"}. */
export function nowUtc() {
  const iso = new Date().toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
}

export const number = (value) => Number(value).toLocaleString('en-GB');

/** The message of an error for a person, with the field it names when there is one. */
export function explain(error) {
  const details = error && error.details;
  let extra = '';
  if (details && details.field) extra = ' (' + details.field + ')';
  else if (details && details.missing) extra = ' (missing: ' + details.missing.join(', ') + ')';
  return (error && error.message ? error.message : String(error)) + extra;
}
