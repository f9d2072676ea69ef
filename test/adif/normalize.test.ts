import t, { type Test } from 'tap';
import { normalizeRecord, type NormalizeOptions, type RawRecord } from '../../lib/adif/normalize.js';

const ADIF: NormalizeOptions = { frequencyUnit: 'MHz' };
const JSON_BODY: NormalizeOptions = { frequencyUnit: 'Hz' };

const minimal = { CALL: 'DL1ABC', QSO_DATE: '20240131', TIME_ON: '1234' };

/** Normalises a record that must be accepted. */
function normalizeOk(t: Test, raw: RawRecord, options = ADIF) {
  const result = normalizeRecord(raw, options);
  t.not(result.qso, null, `accepted: ${result.messages.join('; ')}`);
  return { ...result, qso: result.qso! };
}

t.test('a realistic ADIF record (WSJT-X)', async (t) => {
  const result = normalizeRecord(
    {
      CALL: 'dl1abc',
      GRIDSQUARE: 'jo62',
      MODE: 'FT4',
      RST_SENT: '-10',
      RST_RCVD: '-12',
      QSO_DATE: '20240131',
      TIME_ON: '235945',
      QSO_DATE_OFF: '20240201',
      TIME_OFF: '000015',
      BAND: '20M',
      FREQ: '14.081234',
      STATION_CALLSIGN: 'pa3xyz',
      MY_GRIDSQUARE: 'JO21qm',
      TX_PWR: '50W',
      COMMENT: 'FT4  Sent: -10  Rcvd: -12',
      NAME: 'Hans Müller',
      CQZ: '14',
      ITUZ: '028',
      DXCC: '230',
      CONT: 'eu',
      QSL_SENT: 'n',
      QSL_RCVD: 'n',
      LOTW_QSL_SENT: 'y',
      LOTW_QSLSDATE: '20240201',
      EQSL_QSL_RCVD: 'Y',
      EQSL_QSLRDATE: '20240231',
      PROP_MODE: 'f2',
      SOTA_REF: 'dl/am-001',
      POTA_REF: 'de-0001,de-0002',
      SIG: 'wwff',
      SIG_INFO: 'dlff-0001',
      SRX: '007',
      STX: '12',
      APP_WSJTX_DECODE: 'x',
      PROGRAMID: 'WSJT-X',
      ADIF_VER: '3.1.6',
      MY_CUSTOM_FIELD: 'hello',
    },
    ADIF,
  );
  t.same(result, {
    qso: {
      call: 'DL1ABC',
      timeOn: '2024-01-31 23:59:45',
      timeOff: '2024-02-01 00:00:15',
      band: '20m',
      bandRx: null,
      mode: 'MFSK',
      submode: 'FT4',
      freq: 14081234,
      freqRx: null,
      fields: {
        gridsquare: 'JO62',
        rst_sent: '-10',
        rst_rcvd: '-12',
        station_callsign: 'PA3XYZ',
        my_gridsquare: 'JO21QM',
        tx_pwr: '50',
        comment: 'FT4  Sent: -10  Rcvd: -12',
        name: 'Hans Müller',
        cqz: '14',
        ituz: '28',
        dxcc: '230',
        cont: 'EU',
        qsl_sent: 'N',
        qsl_rcvd: 'N',
        lotw_qsl_sent: 'Y',
        lotw_qslsdate: '2024-02-01',
        eqsl_qsl_rcvd: 'Y',
        prop_mode: 'F2',
        sota_ref: 'DL/AM-001',
        pota_ref: 'DE-0001,DE-0002',
        sig: 'WWFF',
        sig_info: 'DLFF-0001',
        srx: '7',
        stx: '12',
        app_wsjtx_decode: 'x',
        my_custom_field: 'hello',
      },
    },
    messages: ['EQSL_QSLRDATE "20240231" is not a valid date; field dropped'],
    unknownFields: ['MY_CUSTOM_FIELD'],
  });
});

t.test('a realistic JSON create body (lower-case names, Hz)', async (t) => {
  const body = {
    call: 'DLØXYZ',
    qso_date: '2024-03-05',
    time_on: '18:07',
    mode: 'USB',
    freq: 14250000,
    freq_rx: '14.074M',
    rst_sent: '59',
    rst_rcvd: '57',
    gridsquare: 'JN58td',
    name: 'Karl',
    tx_pwr: 100,
    cqz: 14,
    qsl_sent: 'N',
    sat_name: null,
    comment: '',
    swl: false,
  };
  const { qso, messages, unknownFields } = normalizeOk(t, body, JSON_BODY);
  t.same(qso, {
    call: 'DL0XYZ',
    timeOn: '2024-03-05 18:07:00',
    timeOff: '2024-03-05 18:07:00',
    band: '20m',
    bandRx: '20m',
    mode: 'SSB',
    submode: 'USB',
    freq: 14250000,
    freqRx: 14074000,
    fields: { rst_sent: '59', rst_rcvd: '57', gridsquare: 'JN58TD', name: 'Karl', tx_pwr: '100', cqz: '14', qsl_sent: 'N', swl: 'N' },
  });
  t.same(messages, []);
  t.same(unknownFields, []);
});

t.test('the API’s own qso_date form carries the time', async (t) => {
  const { qso } = normalizeOk(t, { call: 'K1ABC', qso_date: '2024-03-05 18:07:09', freq: '7074000' }, JSON_BODY);
  t.equal(qso.timeOn, '2024-03-05 18:07:09');
  t.equal(qso.band, '40m');
  const withTime = normalizeOk(t, { call: 'K1ABC', qso_date: '2024-03-05T18:07:09Z', time_on: '1900' }, JSON_BODY);
  t.equal(withTime.qso.timeOn, '2024-03-05 19:00:00', 'an explicit time_on wins');
});

t.test('rejections say why', async (t) => {
  const cases: [RawRecord, string[]][] = [
    [{ QSO_DATE: '20240131', TIME_ON: '1234' }, ['CALL is missing']],
    [{ CALL: '  ', QSO_DATE: '20240131', TIME_ON: '1234' }, ['CALL is missing']],
    [{ CALL: 'DL1 ABC', QSO_DATE: '20240131', TIME_ON: '1234' }, ['CALL "DL1 ABC" is not a valid callsign']],
    [{ CALL: 'DL1ABC', TIME_ON: '1234' }, ['QSO_DATE is missing']],
    [{ CALL: 'DL1ABC', QSO_DATE: '20240131' }, ['TIME_ON is missing']],
    [{ CALL: 'DL1ABC', QSO_DATE: '20240231', TIME_ON: '1234' }, ['QSO_DATE "20240231" is not a valid date']],
    [{ CALL: 'DL1ABC', QSO_DATE: '20240131', TIME_ON: '2460' }, ['TIME_ON "2460" is not a valid time']],
    [{ CALL: 'DL1ABC', QSO_DATE: '20240131', TIME_ON: '1299' }, ['TIME_ON "1299" is not a valid time']],
    [{}, ['CALL is missing', 'QSO_DATE is missing', 'TIME_ON is missing']],
  ];
  for (const [raw, messages] of cases) {
    const result = normalizeRecord(raw, ADIF);
    t.equal(result.qso, null, JSON.stringify(raw));
    t.same(result.messages, messages, JSON.stringify(raw));
  }
});

t.test('field names match in any case; empty values are absent; header fields vanish', async (t) => {
  const { qso, unknownFields, messages } = normalizeOk(t, {
    Call: 'dl1abc',
    qso_DATE: '20240131',
    Time_On: '1234',
    Gridsquare: 'jo62',
    NAME: '',
    QTH: null,
    RIG: '   ',
    programversion: '2.6',
    CREATED_TIMESTAMP: '20240131 123456',
    USERDEF1: 'SWR,{1.0:9.9}',
  });
  t.equal(qso.call, 'DL1ABC');
  t.same(qso.fields, { gridsquare: 'JO62' });
  t.same(unknownFields, []);
  t.same(messages, []);
});

t.test('band: stated, derived, mismatched, out of band', async (t) => {
  const cases: [RawRecord, string, string | null, number | null, string[]][] = [
    [{ BAND: '20M' }, '20m', null, null, []],
    [{ BAND: '20m', FREQ: '7.074' }, '20m', null, 7074000, ['BAND 20m does not match FREQ 7.074 MHz (40m)']],
    [{ FREQ: '7.074' }, '40m', null, 7074000, []],
    [{ FREQ: '7.5' }, '', null, 7500000, ['FREQ 7.5 MHz is outside every band']],
    [{ BAND: '40m', FREQ: '7.5' }, '40m', null, 7500000, []],
    [{ BAND: '11m', FREQ: '27.555' }, '11m', null, 27555000, ['BAND "11m" is not an ADIF band']],
    [{}, '', null, null, []],
    [{ FREQ: '0' }, '', null, null, []],
    [{ FREQ: 'abc' }, '', null, null, ['FREQ "abc" is not a frequency; field dropped']],
    [{ FREQ: '145.9', FREQ_RX: '435.8' }, '2m', '70cm', 145900000, []],
    [{ BAND: '2m', BAND_RX: '70CM', FREQ_RX: '145.9' }, '2m', '70cm', null, ['BAND_RX 70cm does not match FREQ_RX 145.9 MHz (2m)']],
    [{ FREQ: '14.074M' }, '20m', null, 14074000, []],
    // Hz where ADIF wants MHz, whatever the digit count: read as Hz when that lies in the
    // stated band and MHz does not (without BAND: in some band, MHz in none or in submm).
    [{ BAND: '20m', FREQ: '14070000' }, '20m', null, 14070000, ['FREQ "14070000" is Hz, not MHz: stored as 14.07 MHz']],
    [{ BAND: '40m', FREQ: '7076000' }, '40m', null, 7076000, ['FREQ "7076000" is Hz, not MHz: stored as 7.076 MHz']],
    [{ BAND: '80M', FREQ: '3573000' }, '80m', null, 3573000, ['FREQ "3573000" is Hz, not MHz: stored as 3.573 MHz']],
    [{ BAND: '160m', FREQ: '1840000' }, '160m', null, 1840000, ['FREQ "1840000" is Hz, not MHz: stored as 1.84 MHz']],
    [{ BAND: '30m', FREQ: '10136000' }, '30m', null, 10136000, ['FREQ "10136000" is Hz, not MHz: stored as 10.136 MHz']],
    [{ BAND: '2m', FREQ: '144174000' }, '2m', null, 144174000, ['FREQ "144174000" is Hz, not MHz: stored as 144.174 MHz']],
    [{ BAND: '2m', BAND_RX: '70cm', FREQ_RX: '435800000' }, '2m', '70cm', null, ['FREQ_RX "435800000" is Hz, not MHz: stored as 435.8 MHz']],
    [{ FREQ: '7076000' }, '40m', null, 7076000, ['FREQ "7076000" is Hz, not MHz: stored as 7.076 MHz']],
    [{ FREQ: '14070000' }, '20m', null, 14070000, ['FREQ "14070000" is Hz, not MHz: stored as 14.07 MHz']],
    [{ FREQ: '10368100000' }, '3cm', null, 10368100000, ['FREQ "10368100000" is Hz, not MHz: stored as 10368.1 MHz']],
    // Hz in another band than the stated one, or MHz in the stated band: left alone.
    [{ BAND: '40m', FREQ: '14070000' }, '40m', null, 14070000000000, []],
    [{ BAND: 'submm', FREQ: '475000' }, 'submm', null, 475000000000, []],
    // Real MHz values stay MHz, with or without BAND.
    [{ BAND: '20m', FREQ: '14.074' }, '20m', null, 14074000, []],
    [{ FREQ: '14.074' }, '20m', null, 14074000, []],
    [{ BAND: '2190m', FREQ: '0.1357' }, '2190m', null, 135700, []],
    [{ FREQ: '0.1357' }, '2190m', null, 135700, []],
    [{ BAND: '3cm', FREQ: '10368.1' }, '3cm', null, 10368100000, []],
    [{ FREQ: '10368.1' }, '3cm', null, 10368100000, []],
    [{ FREQ: '136000' }, '2mm', null, 136000000000, []],
    [{ FREQ: '1000000 MHz' }, 'submm', null, 1000000000000, []],
    [{ BAND: '40m', FREQ: '7076000 Hz' }, '40m', null, 7076000, []],
  ];
  for (const [extra, band, bandRx, freq, messages] of cases) {
    const result = normalizeRecord({ ...minimal, ...extra }, ADIF);
    t.equal(result.qso?.band, band, JSON.stringify(extra));
    t.equal(result.qso?.bandRx, bandRx, JSON.stringify(extra));
    t.equal(result.qso?.freq, freq, JSON.stringify(extra));
    t.same(result.messages, messages, JSON.stringify(extra));
  }
});

t.test('mode and submode', async (t) => {
  const cases: [RawRecord, string, string | null][] = [
    [{ MODE: 'MFSK', SUBMODE: 'FT4' }, 'MFSK', 'FT4'],
    [{ MODE: 'FT4' }, 'MFSK', 'FT4'],
    [{ MODE: 'FT8' }, 'FT8', null],
    [{ MODE: 'SSB', SUBMODE: 'usb' }, 'SSB', 'USB'],
    [{ MODE: 'lsb' }, 'SSB', 'LSB'],
    [{}, '', null],
    [{ SUBMODE: 'FT4' }, 'MFSK', 'FT4'],
  ];
  for (const [extra, mode, submode] of cases) {
    const { qso } = normalizeOk(t, { ...minimal, ...extra });
    t.equal(qso.mode, mode, JSON.stringify(extra));
    t.equal(qso.submode, submode, JSON.stringify(extra));
    t.notOk('mode' in qso.fields || 'submode' in qso.fields);
  }
});

t.test('time off: defaults to time on, rolls over midnight, bad values dropped', async (t) => {
  const cases: [RawRecord, string, string[]][] = [
    [{}, '2024-01-31 12:34:00', []],
    [{ TIME_OFF: '1240' }, '2024-01-31 12:40:00', []],
    [{ TIME_OFF: '0010' }, '2024-02-01 00:10:00', []],
    [{ QSO_DATE_OFF: '20240201', TIME_OFF: '0010' }, '2024-02-01 00:10:00', []],
    [{ TIME_OFF: '9999' }, '2024-01-31 12:34:00', ['TIME_OFF "9999" is not a valid time; field dropped']],
    [{ QSO_DATE_OFF: '2024013', TIME_OFF: '1300' }, '2024-01-31 13:00:00', ['QSO_DATE_OFF "2024013" is not a valid date; field dropped']],
  ];
  for (const [extra, timeOff, messages] of cases) {
    const result = normalizeRecord({ ...minimal, ...extra }, ADIF);
    t.equal(result.qso?.timeOff, timeOff, JSON.stringify(extra));
    t.same(result.messages, messages, JSON.stringify(extra));
  }
});

t.test('typed fields: normalised, or dropped with a message', async (t) => {
  const cases: [string, string | number | boolean, string | null, string?][] = [
    ['GRIDSQUARE', 'jo62qm', 'JO62QM'],
    ['GRIDSQUARE', 'ZZ99', null, 'GRIDSQUARE "ZZ99" is not a Maidenhead locator; field dropped'],
    ['MY_GRIDSQUARE', 'JO6', null, 'MY_GRIDSQUARE "JO6" is not a Maidenhead locator; field dropped'],
    ['GRIDSQUARE_EXT', 'bq', 'BQ'],
    ['VUCC_GRIDS', 'em98,fm08', 'EM98,FM08'],
    ['VUCC_GRIDS', 'EM98,FM0', null, 'VUCC_GRIDS "EM98,FM0" is not a list of 4- or 6-character locators; field dropped'],
    ['QSLRDATE', '20240115', '2024-01-15'],
    ['LOTW_QSLRDATE', '2024-01-15', '2024-01-15'],
    ['LOTW_QSLRDATE', '20241315', null, 'LOTW_QSLRDATE "20241315" is not a valid date; field dropped'],
    ['CQZ', '05', '5'],
    ['CQZ', 14, '14'],
    ['CQZ', '0', null, 'CQZ "0" is not an integer from 1 to 40; field dropped'],
    ['CQZ', '14a', null, 'CQZ "14a" is not an integer from 1 to 40; field dropped'],
    ['ITUZ', '91', null, 'ITUZ "91" is not an integer from 1 to 90; field dropped'],
    ['DXCC', '0', '0'],
    ['DXCC', 'DL', null, 'DXCC "DL" is not an integer from 0 to 2147483647; field dropped'],
    ['SRX', '001', '1'],
    ['STX', '-1', null, 'STX "-1" is not an integer from 0 to 2147483647; field dropped'],
    ['SRX', '99999999999', null, 'SRX "99999999999" is not an integer from 0 to 2147483647; field dropped'],
    ['K_INDEX', '3', '3'],
    ['SFI', '12.5', null, 'SFI "12.5" is not an integer from 0 to 300; field dropped'],
    ['TX_PWR', '50W', '50'],
    ['TX_PWR', '1.5 kW', '1.5'],
    ['TX_PWR', '100.', '100'],
    ['TX_PWR', 'QRP', null, 'TX_PWR "QRP" is not a number of at least 0; field dropped'],
    ['ANT_AZ', '361', null, 'ANT_AZ "361" is not a number from 0 to 360; field dropped'],
    ['ANT_EL', '-5', '-5'],
    ['DISTANCE', '1234.5', '1234.5'],
    ['QSO_RANDOM', 'y', 'Y'],
    ['QSO_RANDOM', true, 'Y'],
    ['SWL', 'yes', null, 'SWL "yes" is not Y or N; field dropped'],
    ['QSL_RCVD', 'y', 'Y'],
    ['LOTW_QSL_RCVD', 'v', 'V'],
    ['PROP_MODE', 'sat', 'SAT'],
    ['CONT', 'eu', 'EU'],
    ['STATE', 'ny', 'NY'],
    ['CNTY', 'MA,Middlesex', 'MA,Middlesex'],
    ['DARC_DOK', 'a01', 'A01'],
    ['SAT_NAME', 'iss', 'ISS'],
    ['SOTA_REF', 'g/ld-001', 'G/LD-001'],
    ['POTA_REF', 'k-0001', 'K-0001'],
    ['WWFF_REF', 'dlff-0001', 'DLFF-0001'],
    ['IOTA', 'eu-005', 'EU-005'],
    ['MY_SOTA_REF', 'dl/am-001', 'DL/AM-001'],
    ['SIG', 'gma', 'GMA'],
    ['SIG_INFO', 'dl/am-001', 'DL/AM-001'],
    ['SRX_STRING', 'ny', 'NY'],
    ['STX_STRING', '5nn dl', '5NN DL'],
    ['OPERATOR', 'dl1abc', 'DL1ABC'],
    ['STATION_CALLSIGN', 'dkØxx', 'DK0XX'],
    ['OWNER_CALLSIGN', 'dk0xx', 'DK0XX'],
    ['CONTACTED_OP', 'w1aw', 'W1AW'],
    ['EQ_CALL', 'k1abc', 'K1ABC'],
    ['OPERATOR', 'DL1 ABC', null, 'OPERATOR "DL1 ABC" is not a callsign; field dropped'],
    ['NAME', ' Hans ', ' Hans '],
    ['QTH', 'München', 'München'],
    ['CONTEST_ID', 'CQ-WW-CW', 'CQ-WW-CW'],
    ['COMMENT', 'x'.repeat(50), 'x'.repeat(50)],
  ];
  for (const [name, value, stored, message] of cases) {
    const result = normalizeRecord({ ...minimal, [name]: value }, ADIF);
    const key = name.toLowerCase();
    t.equal(result.qso?.fields[key], stored ?? undefined, `${name} ${JSON.stringify(value)}`);
    t.same(result.messages, message === undefined ? [] : [message], `${name} ${JSON.stringify(value)} message`);
  }
});

t.test('long invalid values are shortened in messages', async (t) => {
  const result = normalizeRecord({ ...minimal, GRIDSQUARE: 'Z'.repeat(100) }, ADIF);
  t.same(result.messages, [`GRIDSQUARE "${'Z'.repeat(40)}…" is not a Maidenhead locator; field dropped`]);
});

t.test('unknown and application fields are kept; only unknown ones are listed', async (t) => {
  const { qso, unknownFields } = normalizeOk(t, { ...minimal, APP_N1MM_EXCHANGE1: '599 14', my_logger_id: '42', Foo: 'Bar' });
  t.same(qso.fields, { app_n1mm_exchange1: '599 14', my_logger_id: '42', foo: 'Bar' });
  t.same(unknownFields, ['MY_LOGGER_ID', 'FOO']);
});

t.test('integer fields come out in canonical digits, whatever the input spelled', async (t) => {
  const cases: Array<[string, string]> = [['0', '0'], ['-0', '0'], ['00', '0'], ['007', '7'], ['12', '12'], ['2147483647', '2147483647']];
  for (const [input, stored] of cases) {
    const { qso } = normalizeOk(t, { ...minimal, SRX: input });
    t.equal(qso.fields.srx, stored, `SRX ${input}`);
  }
});
