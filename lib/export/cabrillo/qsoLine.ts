import { cabrilloMode, frequencyField } from './names.js';
import type { ExchangePart } from './exchange.js';
import type { SessionQso } from './sessionRows.js';

/** A QSO line and what could not be written as it is. */
export interface QsoLine {
  text: string;
  /** Fields cut to their column's width (Cabrillo truncates rather than shift the columns after them). */
  truncated: string[];
  modeWritten: boolean;
  bandWritten: boolean;
}

/** `value` in a column of `width`: left-aligned, cut when longer. */
function column(value: string, width: number, name: string, truncated: string[]): string {
  if (value.length > width) truncated.push(`${name} ${value}`);
  return value.slice(0, width).padEnd(width);
}

/**
 * The Cabrillo 3.0 QSO line in its fixed columns: `QSO:`, frequency (5, right-aligned), mode
 * (2), date, time, sent call (13) and exchange, received call (13) and exchange, then the
 * transmitter id when the log has several. A mode or band Cabrillo cannot express is written
 * as DG or the frequency in kHz, and reported by the checks.
 */
export function formatQsoLine(qso: SessionQso, sentCall: string, exchange: ExchangePart[], transmitterId: number | null): QsoLine {
  const truncated: string[] = [];
  const mode = cabrilloMode(qso.mode);
  const frequency = frequencyField(qso.band, qso.freq);
  const exchangeText = (side: 'sent' | 'rcvd') => exchange.map((part) => column(part[side] ?? '', part.width, part.name, truncated)).join(' ');
  const fields = [
    'QSO:',
    (frequency ?? String(Math.floor((qso.freq ?? 0) / 1000))).padStart(5),
    mode ?? 'DG',
    qso.date,
    qso.hhmm,
    column(sentCall.toUpperCase(), 13, 'call', truncated),
    exchangeText('sent'),
    column(qso.call.toUpperCase(), 13, 'call', truncated),
    exchangeText('rcvd'),
    ...(transmitterId === null ? [] : [String(transmitterId)]),
  ];
  return { text: fields.join(' ').trimEnd(), truncated, modeWritten: mode !== null, bandWritten: frequency !== null };
}
