import type { CabrilloSession, SessionQso } from './sessionRows.js';

/** One part of an exchange: its column width and its sent and received values (null when missing). */
export interface ExchangePart {
  name: 'rst' | 'serial' | 'gridsquare' | 'exchange';
  width: number;
  sent: string | null;
  rcvd: string | null;
}

const text = (value: string | null): string | null => (value === null || value.trim() === '' ? null : value.trim().toUpperCase());
const serial = (value: number | null): string | null => (value === null ? null : String(value).padStart(3, '0'));
const grid = (value: string | null): string | null => text(value)?.slice(0, 6) ?? null;

/**
 * A QSO's exchange as the session's `exchangefields` make it: the signal report, then serial,
 * grid square and free exchange in the order the session lists them, sent and received alike
 * (the sent grid square is the QSO's own MY_GRIDSQUARE, else the station location's).
 */
export function exchangeOf(qso: SessionQso, session: CabrilloSession): ExchangePart[] {
  const parts: ExchangePart[] = [{ name: 'rst', width: 3, sent: text(qso.rst_sent), rcvd: text(qso.rst_rcvd) }];
  for (const field of session.exchangefields) {
    if (field === 'serial') parts.push({ name: 'serial', width: 6, sent: serial(qso.stx), rcvd: serial(qso.srx) });
    else if (field === 'gridsquare') parts.push({ name: 'gridsquare', width: 6, sent: grid(qso.my_gridsquare) ?? grid(session.gridsquare), rcvd: grid(qso.gridsquare) });
    else if (field === 'exchange') parts.push({ name: 'exchange', width: 6, sent: text(qso.stx_string), rcvd: text(qso.srx_string) });
  }
  return parts;
}
