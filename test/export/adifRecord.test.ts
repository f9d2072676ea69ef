import t from 'tap';
import { formatMhz } from '../../lib/adif/frequency.js';
import { EXPORT_SELECT_LIST, ExportRecordFormatter, STATION_COLUMNS, exportRowText } from '../../lib/export/adifRecord.js';
import { ByteOutput } from '../../lib/export/byteOutput.js';

/**
 * The export's row formatter on its own: rows are written here in the COPY text the export
 * query produces (by column name of the SELECT list), their locations as the export reads them
 * (by column name, `s.` before it), so the byte-level reading (escapes, UTF-8, frequencies,
 * locations that change between rows) is checked value by value.
 */

const COLUMNS = EXPORT_SELECT_LIST.split(', ');
const LOCATION_COLUMNS = STATION_COLUMNS.map((column) => `s.${column}`);

type Row = Record<string, string | null>;

const LOCATION: Row = { 's.callsign': 'DL0LOG', 's.gridsquare': 'JO62QM' };

/** The rows' locations, an id each (from 7 on) by their values. */
function locationsOf(rows: Row[]): { locations: Map<number, string[]>; ids: number[] } {
  const byValues = new Map<string, number>();
  const locations = new Map<number, string[]>();
  const ids = rows.map((row) => {
    const values = LOCATION_COLUMNS.map((name) => row[name] ?? '');
    const key = JSON.stringify(values);
    let id = byValues.get(key);
    if (id === undefined) {
      byValues.set(key, (id = 7 + byValues.size));
      locations.set(id, values);
    }
    return id;
  });
  return { locations, ids };
}

function rowBytes(values: Row, stationId: number): Buffer {
  for (const name of Object.keys(values)) {
    if (!COLUMNS.includes(name) && !LOCATION_COLUMNS.includes(name)) throw new Error(`no column ${name} in the export's SELECT lists`);
  }
  return Buffer.from(exportRowText(COLUMNS.map((name) => (name === 'q.station_id' ? String(stationId) : values[name] ?? null))));
}

/** Formats rows with one formatter, as an export does; returns each record as text. */
function format(...rows: Row[]): string[] {
  return formatWith({}, rows);
}

function formatWith(options: { inJson?: boolean }, rows: Row[]): string[] {
  const located = rows.map((values) => ({ 'q.id': '1', ...LOCATION, ...values }));
  const { locations, ids } = locationsOf(located);
  const formatter = new ExportRecordFormatter(locations, options);
  const out = new ByteOutput(16);
  const records: string[] = [];
  located.forEach((values, i) => {
    const input = rowBytes(values, ids[i]!);
    // Framed by other bytes, as a row sits inside a piece of COPY output.
    const framed = Buffer.concat([Buffer.from('x\t\t\n'), input, Buffer.from('\nrest')]);
    const before = out.length;
    formatter.format(framed, 4, 4 + input.length, out);
    records.push(out.bytes.toString('utf8', before, out.length));
  });
  return records;
}

/** The value of FIELD in an ADIF record, checking that its length counts code points. */
function field(record: string, name: string): string | undefined {
  const match = new RegExp(`<${name}:(\\d+)>`).exec(record);
  if (!match) return undefined;
  const length = Number(match[1]);
  const value = Array.from(record.slice(match.index + match[0].length)).slice(0, length).join('');
  if (record.slice(match.index + match[0].length + value.length)[0] !== ' ') throw new Error(`length ${length} of ${name} does not end at a space: ${record}`);
  return value;
}

t.test('frequencies: Hz digits become the same MHz text as formatMhz, at every digit count', async (t) => {
  const hzValues = [0, 1, 5, 10, 500, 999_999, 1_000_000, 1_000_001, 1_800_000, 7_074_568, 14_074_000, 144_174_000, 10_368_100_000, 241_000_000_001];
  for (const hz of hzValues) {
    const [record] = format({ 'q.call': 'K1ABC', 'q.freq': String(hz), 'q.freq_rx': String(hz + 1) });
    t.equal(field(record!, 'FREQ'), formatMhz(hz), `FREQ for ${hz} Hz`);
    t.equal(field(record!, 'FREQ_RX'), formatMhz(hz + 1), `FREQ_RX for ${hz + 1} Hz`);
  }
});

t.test('a frequency that is not whole Hz is refused, not written as something else', async (t) => {
  t.throws(() => format({ 'q.freq': '-14074000' }), /not a frequency in whole Hz: -14074000/);
});

t.test('COPY escapes are undone and the length counts the characters they stand for', async (t) => {
  const cases = ['tab\there', 'line\nbreak', 'cr\rlf\n', 'back\\slash', '\\\\', 'end\\', '\\t is not a tab'];
  for (const comment of cases) {
    const [record] = format({ 'q.call': 'K1ABC', 'q.comment': comment });
    t.equal(field(record!, 'COMMENT'), comment, JSON.stringify(comment));
  }
});

t.test('lengths count code points whatever the UTF-8 byte count', async (t) => {
  const names = ['Zoë', 'Jürgen Müller', '東京タワー', 'Ham 📻 radio', '𝔸𝔹ℂ', 'Ωmega\tΩ'];
  for (const name of names) {
    const [record] = format({ 'q.call': 'K1ABC', 'q.name': name });
    t.equal(field(record!, 'NAME'), name, name);
    t.match(record, `<NAME:${Array.from(name).length}>`, `length of ${name}`);
  }
  const [record] = format({ 'q.call': 'K1ABC', 'q.comment': 'é'.repeat(123) });
  t.match(record, /<COMMENT:123>/, 'three-digit lengths');
});

t.test('dates and times come from the stored timestamps and dates', async (t) => {
  const [record] = format({
    'q.call': 'K1ABC',
    'q.time_on': '2024-03-01 23:59:07',
    'q.time_off': '2024-03-02 00:01:00',
    'q.qslrdate': '2024-03-10',
  });
  t.equal(field(record!, 'QSO_DATE'), '20240301');
  t.equal(field(record!, 'TIME_ON'), '235907');
  t.equal(field(record!, 'QSO_DATE_OFF'), '20240302');
  t.equal(field(record!, 'TIME_OFF'), '000100');
  t.equal(field(record!, 'QSLRDATE'), '20240310');
  t.ok(record!.indexOf('<QSO_DATE:') < record!.indexOf('<TIME_ON:'), 'QSO_DATE before TIME_ON');
});

t.test('the location fills what the QSO lacks, and a new location is read when the rows change to it', async (t) => {
  const [first, own, second, back] = format(
    { 'q.call': 'K1AAA' },
    { 'q.call': 'K1BBB', 'q.station_callsign': 'DL0OWN', 'q.my_gridsquare': 'JO50' },
    { 'q.call': 'K1CCC', 's.callsign': 'W1AW', 's.gridsquare': 'FN31,FN32', 's.dxcc': '291', 's.state': 'CT', 's.cnty': 'Hartford' },
    { 'q.call': 'K1DDD' },
  );
  t.equal(field(first!, 'STATION_CALLSIGN'), 'DL0LOG');
  t.equal(field(first!, 'MY_GRIDSQUARE'), 'JO62QM');
  t.equal(field(first!, 'MY_VUCC_GRIDS'), undefined);
  t.equal(field(own!, 'STATION_CALLSIGN'), 'DL0OWN', "the QSO's own value wins");
  t.equal(field(own!, 'MY_GRIDSQUARE'), 'JO50');
  t.equal(field(second!, 'STATION_CALLSIGN'), 'W1AW');
  t.equal(field(second!, 'MY_GRIDSQUARE'), undefined, 'a location with several grids has no MY_GRIDSQUARE');
  t.equal(field(second!, 'MY_VUCC_GRIDS'), 'FN31,FN32');
  t.equal(field(second!, 'MY_CNTY'), 'CT,Hartford', 'US counties are qualified by state');
  t.equal(field(back!, 'STATION_CALLSIGN'), 'DL0LOG', 'the first location again');
  t.equal(field(back!, 'MY_CNTY'), undefined);
});

t.test('locations alternating row by row, each fill their own rows', async (t) => {
  const calls = Array.from({ length: 70 }, (_, i) => `DL${i}LOC`);
  const rows = [...calls, ...calls].map((callsign, i) => ({ 'q.call': `K${i}Q`, 's.callsign': callsign, 's.gridsquare': `JO${10 + (i % 70)}` }));
  const records = format(...rows);
  t.same(records.map((record) => field(record, 'STATION_CALLSIGN')), [...calls, ...calls]);
  t.same(records.map((record) => field(record, 'MY_GRIDSQUARE')), rows.map((row) => row['s.gridsquare']));
});

t.test('a row of a location the export did not read fails, naming its QSO and location', async (t) => {
  const formatter = new ExportRecordFormatter(new Map([[3, LOCATION_COLUMNS.map(() => '')]]));
  const out = new ByteOutput(16);
  const input = Buffer.from(exportRowText(COLUMNS.map((name) => ({ 'q.id': '42', 'q.station_id': '4', 'q.call': 'K1ABC' })[name] ?? null)));
  t.throws(() => formatter.format(input, 0, input.length, out), /QSO 42: its station location 4 is not among the export's/);
});

t.test('extra: values columns could not take, other fields in name order', async (t) => {
  const [record] = format({ 'q.call': 'K1ABC', 'q.extra': JSON.stringify({ zz_own: 'z', app_log_x: 'a\tb', my_city: 'Potsdam', address: 'Street 1' }) });
  t.equal(field(record!, 'MY_CITY'), 'Potsdam');
  t.equal(field(record!, 'ADDRESS'), 'Street 1');
  t.equal(field(record!, 'APP_LOG_X'), 'a\tb');
  t.ok(record!.indexOf('<ADDRESS:') < record!.indexOf('<CALL:'), 'known fields keep their place');
  t.ok(record!.indexOf('<APP_LOG_X:') < record!.indexOf('<ZZ_OWN:'), 'the rest by name');
  t.match(record, /<ZZ_OWN:1>z <EOR>\n$/);
});

t.test('a row with no value at all writes only the original\'s QSL defaults; the id is read from every row', async (t) => {
  const formatter = new ExportRecordFormatter(new Map([[3, LOCATION_COLUMNS.map(() => '')]]));
  const out = new ByteOutput(16);
  const input = Buffer.from(exportRowText(COLUMNS.map((name) => ({ 'q.id': '42', 'q.station_id': '3' })[name] ?? null)));
  formatter.format(input, 0, input.length, out);
  t.equal(out.take().toString('utf8'), '<QSL_RCVD:1>N <QSL_SENT:1>N <EOR>\n');
  t.equal(formatter.id, 42);
});

t.test('inside JSON: the same records, escaped in the same pass, whatever the values hold', async (t) => {
  // Stored values (exportRowText escapes them for COPY as the database does): quotes,
  // backslashes, control bytes COPY escapes and ones it leaves raw, UTF-8; in columns, in extra,
  // in a location's fields and in the original's defaults, over two locations alternating.
  const rows: Row[] = [
    { 'q.call': 'K1ABC', 'q.comment': 'say "hi"\\ back\nline two\ttab\r', 'q.name': 'Jürgen \u0001' },
    { 'q.call': 'K1DEF', 'q.notes': 'bell \u0007 and "quotes"', 's.callsign': 'DL0"Q"', 's.gridsquare': 'JO62', 's.city': 'Köln\\Nord' },
    { 'q.call': 'K1GHI', 'q.extra': JSON.stringify({ app_x: 'a"b\\c\n', my_city: 'Tab\there' }) },
    { 'q.call': 'K1JKL', 'q.qsl_sent': 'Y' },
  ];
  const plain = formatWith({}, rows);
  const inJson = formatWith({ inJson: true }, rows);
  t.equal(inJson.length, plain.length);
  for (let i = 0; i < plain.length; i++) {
    t.equal(JSON.parse(`"${inJson[i]}"`), plain[i], `record ${i} is the plain record as the inside of a JSON string`);
  }
  t.ok(plain[0]!.includes('say "hi"\\ back\nline two\ttab\r'), 'the plain record holds the raw value');
  t.ok(plain[1]!.includes('\u0007') && plain[1]!.includes('<STATION_CALLSIGN:6>DL0"Q" '), 'and the location\'s');
  t.ok(plain[2]!.includes('<APP_X:6>a"b\\c\n'), 'and extra\'s');
});
