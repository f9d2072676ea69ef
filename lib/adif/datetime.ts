/**
 * ADIF dates (YYYYMMDD) and times (HHMM, HHMMSS), plus the ISO-like forms JSON
 * clients send (YYYY-MM-DD, HH:MM, HH:MM:SS). Everything is UTC; results are
 * 'YYYY-MM-DD', 'HH:MM:SS' and 'YYYY-MM-DD HH:MM:SS', which sort as text.
 * Parsing reads character codes directly: these run several times per record.
 */

/** ADIF's Date type starts in 1930. */
const ADIF_MIN_YEAR = 1930;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** The integer value of `count` ASCII digits at `start`, or -1 if any is not a digit. */
function readDigits(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (!(digit >= 0 && digit <= 9)) return -1;
    value = value * 10 + digit;
  }
  return value;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
}

function isRealDate(year: number, month: number, day: number, minYear: number): boolean {
  return year >= minYear && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function isRealIsoDate(text: string, minYear: number): boolean {
  return (
    text.length === 10 &&
    text[4] === '-' &&
    text[7] === '-' &&
    isRealDate(readDigits(text, 0, 4), readDigits(text, 5, 2), readDigits(text, 8, 2), minYear)
  );
}

/**
 * 'YYYYMMDD' or 'YYYY-MM-DD' → 'YYYY-MM-DD', or null unless it names a real
 * calendar day (20240231 is rejected) in 1930 or later, as ADIF requires.
 */
export function parseAdifDate(text: string): string | null {
  if (text.length === 8) {
    const valid = isRealDate(readDigits(text, 0, 4), readDigits(text, 4, 2), readDigits(text, 6, 2), ADIF_MIN_YEAR);
    return valid ? `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}` : null;
  }
  return isRealIsoDate(text, ADIF_MIN_YEAR) ? text : null;
}

/** Whether an API query parameter is exactly 'YYYY-MM-DD' and a real calendar day (any year from 0001). */
export function isValidIsoDate(text: string): boolean {
  return isRealIsoDate(text, 1);
}

function isRealTime(hours: number, minutes: number, seconds: number): boolean {
  return hours >= 0 && hours <= 23 && minutes >= 0 && minutes <= 59 && seconds >= 0 && seconds <= 59;
}

/** 'HHMM', 'HHMMSS', 'HH:MM' or 'HH:MM:SS' → 'HH:MM:SS', or null (2460 and 1299 are rejected). */
export function parseAdifTime(text: string): string | null {
  const withColons = text.length === 5 || text.length === 8;
  if (!withColons && text.length !== 4 && text.length !== 6) return null;
  if (withColons && (text[2] !== ':' || (text.length === 8 && text[5] !== ':'))) return null;
  const step = withColons ? 3 : 2;
  const withSeconds = text.length === 6 || text.length === 8;
  const valid = isRealTime(
    readDigits(text, 0, 2),
    readDigits(text, step, 2),
    withSeconds ? readDigits(text, 2 * step, 2) : 0,
  );
  if (!valid) return null;
  if (text.length === 8) return text;
  const seconds = withSeconds ? text.slice(2 * step, 2 * step + 2) : '00';
  return `${text.slice(0, 2)}:${text.slice(step, step + 2)}:${seconds}`;
}

/**
 * A combined 'YYYY-MM-DD HH:MM[:SS]' or 'YYYY-MM-DDTHH:MM[:SS][Z]' (the form the API
 * emits as qso_date) → its date and time parts, or null.
 */
export function parseDateTime(text: string): { date: string; time: string } | null {
  if (text.length < 16 || (text[10] !== ' ' && text[10] !== 'T')) return null;
  const date = parseAdifDate(text.slice(0, 10));
  const time = parseAdifTime(text.endsWith('Z') ? text.slice(11, -1) : text.slice(11));
  return date !== null && time !== null ? { date, time } : null;
}

/** 'YYYY-MM-DD' + 'HH:MM:SS' → 'YYYY-MM-DD HH:MM:SS'. */
export function combineDateTime(date: string, time: string): string {
  return `${date} ${time}`;
}

function nextDay(date: string): string {
  let year = readDigits(date, 0, 4);
  let month = readDigits(date, 5, 2);
  let day = readDigits(date, 8, 2) + 1;
  if (day > daysInMonth(year, month)) {
    day = 1;
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * The end of a QSO from its start ('YYYY-MM-DD HH:MM:SS') and the record's parsed
 * QSO_DATE_OFF / TIME_OFF. Without TIME_OFF the QSO ends when it starts (a lone
 * QSO_DATE_OFF says nothing about the hour). A TIME_OFF without a date that is
 * earlier than the start crossed midnight, so it is on the next day. The result is
 * never earlier than the start.
 */
export function timeOffFor(timeOn: string, dateOff?: string | null, timeOff?: string | null): string {
  if (!timeOff) return timeOn;
  const end = combineDateTime(dateOff ?? timeOn.slice(0, 10), timeOff);
  if (end >= timeOn) return end;
  return dateOff ? timeOn : combineDateTime(nextDay(timeOn.slice(0, 10)), timeOff);
}
