// The fields of a QSO the form shows, and the conversion between a QSO object (Hz, one
// "YYYY-MM-DD HH:MM:SS" time) and the form's text (MHz, date and time apart).
import { hz, mhz } from './format.js';

export const BANDS = ['2190m', '630m', '160m', '80m', '60m', '40m', '30m', '20m', '17m', '15m', '12m', '10m', '6m', '4m', '2m', '1.25m', '70cm', '23cm', '13cm', '3cm'];
export const MODES = ['SSB', 'USB', 'LSB', 'CW', 'FM', 'AM', 'FT8', 'FT4', 'RTTY', 'PSK31', 'JS8', 'SSTV'];

// Editable text fields (PATCH accepts each), with their labels; `main` ones are shown at once.
export const TEXT_FIELDS = [
  ['rst_sent', 'RST sent', true], ['rst_rcvd', 'RST received', true], ['name', 'Name', true], ['qth', 'QTH', true],
  ['gridsquare', 'Gridsquare', true], ['comment', 'Comment', true], ['tx_pwr', 'Power (W)', false], ['notes', 'Notes', false],
  ['band_rx', 'Band RX', false], ['prop_mode', 'Propagation mode', false], ['sat_name', 'Satellite', false], ['sat_mode', 'Satellite mode', false],
  ['sota_ref', 'SOTA', false], ['pota_ref', 'POTA', false], ['wwff_ref', 'WWFF', false], ['iota', 'IOTA', false],
  ['sig', 'SIG', false], ['sig_info', 'SIG info', false], ['darc_dok', 'DOK', false], ['state', 'State', false], ['cnty', 'County', false],
  ['qsl_via', 'QSL via', false], ['cqz', 'CQ zone', false], ['ituz', 'ITU zone', false],
  ['srx', 'Serial received', false], ['stx', 'Serial sent', false], ['srx_string', 'Exchange received', false], ['stx_string', 'Exchange sent', false],
];

const text = (v) => (v === null || v === undefined ? '' : String(v));

/** A QSO object → the form's values. */
export function toForm(qso) {
  const values = {
    call: qso.call, band: qso.band, mode: qso.submode || qso.mode, date: qso.qso_date.slice(0, 10), time: qso.qso_date.slice(11, 16),
    time_off: qso.time_off ? qso.time_off.slice(11, 16) : '', freq: mhz(qso.freq), freq_rx: mhz(qso.freq_rx), station_profile_id: String(qso.station_id),
  };
  for (const [key] of TEXT_FIELDS) values[key] = text(qso[key]);
  return values;
}

/** The form's values → the v2 body (MHz → Hz); with `before`, only what changed (PATCH). */
export function toBody(values, before) {
  const body = {};
  const put = (key, value) => { if (!before || text(before[key]) !== text(values[key])) body[key] = value; };
  for (const key of ['call', 'band', 'mode', ...TEXT_FIELDS.map(([k]) => k)]) put(key, text(values[key]).trim() || null);
  put('time_off', text(values.time_off).replace(':', '') || null);
  for (const key of ['freq', 'freq_rx']) {
    const value = hz(values[key]);
    if (Number.isNaN(value)) throw new Error('The frequency must be in MHz, e.g. 14.074');
    put(key, value);
  }
  put('station_profile_id', Number(values.station_profile_id));
  if (!before || before.date !== values.date || before.time !== values.time) {
    body.qso_date = values.date;
    body.time_on = values.time;
  }
  return body;
}
