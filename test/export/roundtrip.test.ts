import { PassThrough } from 'node:stream';
import type pg from 'pg';
import t from 'tap';
import { BANDS } from '../../lib/adif/bands.js';
import { allFields, type FieldInfo } from '../../lib/adif/fields.js';
import { formatMhz } from '../../lib/adif/frequency.js';
import { MODE_TABLE } from '../../lib/adif/modes.js';
import { normalizeRecord } from '../../lib/adif/normalize.js';
import { parseAdif } from '../../lib/adif/tokenizer.js';
import { exportAdifStream } from '../../lib/export/query.js';
import { createOperator } from '../helpers/fixtures.js';
import { testDatabase } from '../helpers/db.js';
import { adifDocument, importText, type Fields } from '../import/helpers.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Property: for random records carrying every catalogue field (plus application and unknown
 * fields), import → export gives back what the normaliser made of the original, and
 * export → import → export gives back the same document.
 */

const RECORDS = 150;

const random = seededRandom(20240301);
const int = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
const pick = <T>(list: readonly T[]): T => list[int(0, list.length - 1)]!;

const TEXT_PIECES = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', ' ', '<', '>', ':', ',', '\\', '\t', '"', 'é', 'Ж', '東', '😀', '\\N'];
const LINE_BREAKS = ['\n', '\r\n'];

function text(multiline = false): string {
  let value = pick(TEXT_PIECES.slice(0, 62));
  for (let n = int(0, 12); n > 0; n--) value += multiline && random() < 0.1 ? pick(LINE_BREAKS) : pick(TEXT_PIECES);
  return value + pick(TEXT_PIECES.slice(0, 62));
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
function callsign(): string {
  return `${pick(['DL', 'G', 'K', 'JA', 'VK', 'OH'])}${int(0, 9)}${pick([...LETTERS])}${pick([...LETTERS])}${random() < 0.2 ? '/P' : ''}`;
}

function grid(): string {
  const field = () => LETTERS[int(0, 17)]!;
  const sub = () => LETTERS[int(0, 23)]!;
  return pick([`${field()}${field()}${int(10, 99)}`, `${field()}${field()}${int(10, 99)}${sub()}${sub()}`]);
}

function date(): string {
  return `${int(1990, 2030)}${String(int(1, 12)).padStart(2, '0')}${String(int(1, 28)).padStart(2, '0')}`;
}

function number(field: FieldInfo): string {
  const low = field.minimum ?? -1000;
  const high = field.maximum ?? 100000;
  const whole = int(Math.ceil(low), Math.floor(high));
  return whole >= 0 && whole < high && random() < 0.5 ? `${whole}.${int(1, 99)}` : String(whole);
}

const CALLSIGN_FIELDS = new Set(['OPERATOR', 'STATION_CALLSIGN', 'OWNER_CALLSIGN', 'CONTACTED_OP', 'EQ_CALL', 'GUEST_OP']);
/** Written below, together: they depend on each other. */
const CORE_FIELDS = new Set(['CALL', 'QSO_DATE', 'TIME_ON', 'QSO_DATE_OFF', 'TIME_OFF', 'BAND', 'BAND_RX', 'MODE', 'SUBMODE', 'FREQ', 'FREQ_RX']);

function value(field: FieldInfo): string {
  if (CALLSIGN_FIELDS.has(field.name)) return callsign();
  if (field.name === 'DXCC' || field.name === 'MY_DXCC') return String(int(0, 522));
  switch (field.dataType) {
    case 'Date':
      return date();
    case 'Number':
      return number(field);
    case 'Integer':
      return String(int(field.minimum ?? -1000, field.maximum ?? 100000));
    case 'PositiveInteger':
      return String(int(Math.max(field.minimum ?? 1, 1), field.maximum ?? 100000));
    case 'Boolean':
      return pick(['Y', 'N']);
    case 'GridSquare':
      return grid();
    case 'GridSquareExt':
      return pick(['AB', 'XW12']);
    case 'GridSquareList':
      return `${grid().slice(0, 4)},${grid().slice(0, 4)}`;
    case 'MultilineString':
    case 'IntlMultilineString':
      return text(true);
    default:
      return text();
  }
}

function hz(band: (typeof BANDS)[number]): string {
  return formatMhz(int(band.lowerHz, band.upperHz));
}

function randomRecord(): Fields {
  const band = pick(BANDS);
  const rxBand = pick(BANDS);
  const mode = pick(MODE_TABLE.filter((entry) => entry.submodes.length > 0));
  const start = Date.UTC(2000, 0, 1) + int(0, 20 * 365) * 86_400_000 + int(0, 86_399) * 1000;
  const end = new Date(start + int(0, 7200) * 1000).toISOString();
  const on = new Date(start).toISOString();
  const fields: Fields = [
    ['CALL', callsign()],
    ['QSO_DATE', on.slice(0, 10).replaceAll('-', '')],
    ['TIME_ON', on.slice(11, 19).replaceAll(':', '')],
    ['QSO_DATE_OFF', end.slice(0, 10).replaceAll('-', '')],
    ['TIME_OFF', end.slice(11, 19).replaceAll(':', '')],
    ['BAND', band.name],
    ['FREQ', hz(band)],
    ['BAND_RX', rxBand.name],
    ['FREQ_RX', hz(rxBand)],
    ['MODE', mode.mode],
    ['SUBMODE', pick(mode.submodes)],
  ];
  for (const field of allFields()) {
    if (!field.header && !CORE_FIELDS.has(field.name)) fields.push([field.name, value(field)]);
  }
  fields.push(['APP_TEST_ROUNDTRIP', text(true)], ['MY_OWN_FIELD', text()]);
  return fields;
}

async function exportDocument(pool: pg.Pool, stationId: number): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  await exportAdifStream(pool, { stationIds: [stationId] }, out, { header: false });
  return Buffer.concat(chunks).toString('utf8');
}

const normalized = (fields: Readonly<Record<string, string>>) => normalizeRecord(fields, { frequencyUnit: 'MHz' }).qso;

t.test('import → export → import loses nothing', async (t) => {
  const db = await testDatabase(t);
  const first = await createOperator(db.pool);
  const second = await createOperator(db.pool);
  const records = Array.from({ length: RECORDS }, randomRecord);

  const imported = await importText(db.pool, adifDocument(records), { stationId: first.stationId });
  t.match(imported, { parsed: RECORDS, imported: RECORDS, failed: 0 });
  // Every record names a random STATION_CALLSIGN: one grouped warning, first.
  t.match(imported.messages[0], new RegExp(`^${RECORDS} records name station callsign .*: imported all the same`));
  t.same(imported.messages.slice(1).filter((m) => !m.includes('MY_OWN_FIELD')), [], 'every generated value is valid');

  const exported = await exportDocument(db.pool, first.stationId);
  const parsed = parseAdif(exported);
  t.same(parsed.problems, []);
  t.equal(parsed.records.length, RECORDS);
  let same = 0;
  for (let i = 0; i < RECORDS; i++) {
    const expected = normalized(Object.fromEntries(records[i]!));
    const actual = normalized(parsed.records[i]!.fields);
    if (JSON.stringify(actual, Object.keys(actual!).sort()) === JSON.stringify(expected, Object.keys(expected!).sort())) same++;
    else t.same(actual, expected, `record ${i + 1}`);
  }
  t.equal(same, RECORDS, 'every record comes back as normalised');

  t.match(await importText(db.pool, exported, { stationId: second.stationId }), { imported: RECORDS, failed: 0 });
  t.equal(await exportDocument(db.pool, second.stationId), exported, 'the second export is the first, byte for byte');
});
