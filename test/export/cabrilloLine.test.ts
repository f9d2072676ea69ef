import t from 'tap';
import { formatQsoLine } from '../../lib/export/cabrillo/qsoLine.js';
import { exchangeOf } from '../../lib/export/cabrillo/exchange.js';
import { cabrilloContestName, cabrilloMode, frequencyField } from '../../lib/export/cabrillo/names.js';
import { CabrilloOptionError, readCabrilloOptions } from '../../lib/export/cabrillo/options.js';
import type { CabrilloSession, SessionQso } from '../../lib/export/cabrillo/sessionRows.js';

const session = (exchangefields: string[]): CabrilloSession => ({
  id: 1, contest: 'CQ-WW-SSB', exchangefields, serialPerBand: false, serialPerOperator: false, callsign: 'HC8N', gridsquare: 'EI49', timeStart: '', timeEnd: null,
});

const qso = (fields: Partial<SessionQso>): SessionQso => ({
  id: 1, call: 'W1AW', date: '1999-11-27', hhmm: '0711', band: '80m', mode: 'SSB', freq: 3_799_000, rst_sent: '59', rst_rcvd: '59',
  stx: null, srx: null, stx_string: null, srx_string: null, gridsquare: null, my_gridsquare: null, operator: null, radio_nr: null,
  outside: false, duplicate: false, prev_stx: null, same_stx: 0, ...fields,
});

/** The Cabrillo 3.0 template's columns (1-based, inclusive) of an HF line with one exchange part after the report. */
const TEMPLATE = {
  tag: [1, 4], freq: [6, 10], mode: [12, 13], date: [15, 24], time: [26, 29], sentCall: [31, 43], sentRst: [45, 47], sentExch: [49, 54],
  rcvdCall: [56, 68], rcvdRst: [70, 72], rcvdExch: [74, 79], transmitter: [81, 81],
} as const;

const at = (line: string, [from, to]: readonly [number, number]) => line.padEnd(81).slice(from - 1, to);

t.test('a CQ WW line sits in the template\'s columns, character by character', async (t) => {
  const s = session(['exchange']);
  const q = qso({ stx_string: '10', srx_string: '05' });
  const { text } = formatQsoLine(q, s.callsign, exchangeOf(q, s), 0);
  t.equal(text, 'QSO:  3799 PH 1999-11-27 0711 HC8N          59  10     W1AW          59  05     0');
  const expected: Record<keyof typeof TEMPLATE, string> = {
    tag: 'QSO:', freq: ' 3799', mode: 'PH', date: '1999-11-27', time: '0711', sentCall: 'HC8N         ', sentRst: '59 ', sentExch: '10    ',
    rcvdCall: 'W1AW         ', rcvdRst: '59 ', rcvdExch: '05    ', transmitter: '0',
  };
  for (const [field, columns] of Object.entries(TEMPLATE)) t.equal(at(text, columns), expected[field as keyof typeof TEMPLATE], field);
  // Every gap between the template's fields is one space.
  for (const column of [5, 11, 14, 25, 30, 44, 48, 55, 69, 73, 80]) t.equal(text[column - 1], ' ', `column ${column}`);
});

t.test('a WPX line: report and serial, no transmitter column for one transmitter', async (t) => {
  const s = session(['serial']);
  const q = qso({ call: 'K1AR', band: '20m', mode: 'CW', freq: 14_025_500, rst_sent: '599', rst_rcvd: '599', stx: 1, srx: 2001 });
  const { text } = formatQsoLine(q, 'DL1ABC', exchangeOf(q, s), null);
  t.equal(text, 'QSO: 14025 CW 1999-11-27 0711 DL1ABC        599 001    K1AR          599 2001');
  t.equal(at(text, TEMPLATE.sentExch), '001   ');
  t.equal(at(text, TEMPLATE.rcvdExch), '2001  ');
});

t.test('a VHF line: report, serial and locator; the band designator as frequency', async (t) => {
  const s = { ...session(['serial', 'gridsquare']), gridsquare: 'jo62qm' };
  const q = qso({ call: 'OK1KIR', band: '2m', mode: 'SSB', freq: 144_300_000, stx: 1, srx: 12, gridsquare: 'jo60ua' });
  const { text } = formatQsoLine(q, 'DL1ABC', exchangeOf(q, s), null);
  t.equal(text, 'QSO:   144 PH 1999-11-27 0711 DL1ABC        59  001    JO62QM OK1KIR        59  012    JO60UA');
});

t.test('overflow is cut to the column, and said', async (t) => {
  const s = session(['exchange']);
  const q = qso({ call: 'KA5WSS/ARRL-JUBILEE', stx_string: '10', srx_string: 'VERYLONGEXCHANGE' });
  const line = formatQsoLine(q, 'HC8N', exchangeOf(q, s), null);
  t.equal(line.text, 'QSO:  3799 PH 1999-11-27 0711 HC8N          59  10     KA5WSS/ARRL-J 59  VERYLO');
  t.same(line.truncated, ['call KA5WSS/ARRL-JUBILEE', 'exchange VERYLONGEXCHANGE']);
});

t.test('names: contests, modes, frequencies', async (t) => {
  t.equal(cabrilloContestName('arrl-field-day'), 'ARRL-FD');
  t.equal(cabrilloContestName('CQ-WPX-CW'), 'CQ-WPX-CW');
  t.equal(cabrilloContestName('EU SPRINT'), 'EU-SPRINT');
  t.same(['CW', 'SSB', 'AM', 'FM', 'RTTY', 'FT8', 'MFSK', 'PSK', 'SSTV'].map(cabrilloMode), ['CW', 'PH', 'PH', 'FM', 'RY', 'DG', 'DG', 'DG', null]);
  t.equal(frequencyField('20m', 14_074_000), '14074');
  t.equal(frequencyField('40m', null), '7000', 'an unknown frequency: the band edge');
  t.equal(frequencyField('70cm', 432_100_000), '432');
  t.equal(frequencyField('23cm', 1_296_200_000), '1.2G');
  t.equal(frequencyField('8m', 40_680_000), null, 'no designator above 30 MHz');
  t.equal(frequencyField('', null), null);
});

t.test('options: defaults, enumerations, one-line values', async (t) => {
  const defaults = readCabrilloOptions({});
  t.same(defaults.categories, { operator: 'SINGLE-OP', power: 'HIGH', station: 'FIXED', transmitter: 'ONE', assisted: 'NON-ASSISTED' });
  t.equal(defaults.claimedScore, null);
  const chosen = readCabrilloOptions({ category_power: 'low', address: 'Street 1\n12345 Town\n', soapbox: 'Fun!', claimed_score: '12345' });
  t.equal(chosen.categories.power, 'LOW');
  t.same(chosen.address, ['Street 1', '12345 Town']);
  t.equal(chosen.claimedScore, 12345);
  t.throws(() => readCabrilloOptions({ category_power: 'MEDIUM' }), /category_power must be one of HIGH, LOW, QRP/);
  t.ok((() => { try { readCabrilloOptions({ email: 'x\ny' }); } catch (error) { return error instanceof CabrilloOptionError && error.field === 'email'; } return false; })());
  t.throws(() => readCabrilloOptions({ name: 'Me\nQSO: 14000 CW 2024-01-01 0000 X 599 1 Y 599 1' }), /one line/);
  t.throws(() => readCabrilloOptions({ claimed_score: '-1' }), /whole number/);
  t.throws(() => readCabrilloOptions({ soapbox: Array.from({ length: 21 }, (_, i) => `line ${i}`).join('\n') }), /more than 20/);
});
