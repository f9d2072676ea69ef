import t from 'tap';
import {
  combineDateTime,
  isValidIsoDate,
  parseAdifDate,
  parseAdifTime,
  parseDateTime,
  timeOffFor,
} from '../../lib/adif/datetime.js';

t.test('parseAdifDate accepts real days in both forms', async (t) => {
  const cases: [string, string][] = [
    ['20240131', '2024-01-31'],
    ['2024-01-31', '2024-01-31'],
    ['20240229', '2024-02-29'],
    ['20000229', '2000-02-29'],
    ['19300101', '1930-01-01'],
    ['20231231', '2023-12-31'],
  ];
  for (const [input, date] of cases) t.equal(parseAdifDate(input), date, input);
});

t.test('parseAdifDate rejects what does not round-trip', async (t) => {
  const rejects = [
    '20240231', '20230229', '19000229', '20240431', '20241301', '20240001', '20240100', '2024-02-30', '2024-13-01',
    '19291231', '2024131', '202401311', '2024/01/31', '2024-1-31', '2024013a', '', 'yesterday', ' 20240131',
  ];
  for (const input of rejects) t.equal(parseAdifDate(input), null, JSON.stringify(input));
});

t.test('isValidIsoDate: exactly YYYY-MM-DD and a real day', async (t) => {
  t.ok(isValidIsoDate('2026-02-28'));
  t.ok(isValidIsoDate('1900-01-01'), 'query bounds may predate ADIF');
  t.ok(isValidIsoDate('2024-02-29'));
  t.notOk(isValidIsoDate('2026-02-31'));
  t.notOk(isValidIsoDate('20260228'));
  t.notOk(isValidIsoDate('2026-2-28'));
  t.notOk(isValidIsoDate('2026-02-28T00:00'));
  t.notOk(isValidIsoDate('0000-01-01'));
});

t.test('parseAdifTime accepts ADIF and colon forms', async (t) => {
  const cases: [string, string][] = [
    ['1234', '12:34:00'],
    ['123456', '12:34:56'],
    ['12:34', '12:34:00'],
    ['12:34:56', '12:34:56'],
    ['0000', '00:00:00'],
    ['235959', '23:59:59'],
  ];
  for (const [input, time] of cases) t.equal(parseAdifTime(input), time, input);
});

t.test('parseAdifTime rejects impossible times', async (t) => {
  const rejects = ['2460', '1299', '2400', '1260', '126000', '123460', '12:60', '24:00', '123', '12345', '1234567', '12-34', '12:3a', '', 'noon', '12:34:5'];
  for (const input of rejects) t.equal(parseAdifTime(input), null, JSON.stringify(input));
});

t.test('parseDateTime splits the API’s combined form', async (t) => {
  t.same(parseDateTime('2024-01-31 12:34:56'), { date: '2024-01-31', time: '12:34:56' });
  t.same(parseDateTime('2024-01-31T12:34:56Z'), { date: '2024-01-31', time: '12:34:56' });
  t.same(parseDateTime('2024-01-31T12:34'), { date: '2024-01-31', time: '12:34:00' });
  t.equal(parseDateTime('2024-02-31 12:34:56'), null);
  t.equal(parseDateTime('2024-01-31 25:00:00'), null);
  t.equal(parseDateTime('2024-01-31'), null);
  t.equal(parseDateTime('2024-01-31T12:34:56+02:00'), null);
});

t.test('combineDateTime', async (t) => {
  t.equal(combineDateTime('2024-01-31', '12:34:56'), '2024-01-31 12:34:56');
});

t.test('timeOffFor: defaults, rollover over midnight and month/year ends, never before the start', async (t) => {
  const cases: [string, string | null, string | null, string, string][] = [
    ['2024-01-31 12:00:00', null, null, '2024-01-31 12:00:00', 'no TIME_OFF: ends when it starts'],
    ['2024-01-31 12:00:00', '2024-02-01', null, '2024-01-31 12:00:00', 'a lone QSO_DATE_OFF says nothing'],
    ['2024-01-31 12:00:00', null, '12:05:00', '2024-01-31 12:05:00', 'same day'],
    ['2024-01-31 12:00:00', null, '12:00:00', '2024-01-31 12:00:00', 'equal is not a rollover'],
    ['2024-07-14 23:55:00', null, '01:00:00', '2024-07-15 01:00:00', 'the ADIF example'],
    ['2024-01-31 23:59:00', null, '00:01:00', '2024-02-01 00:01:00', 'month end'],
    ['2024-02-28 23:59:00', null, '00:01:00', '2024-02-29 00:01:00', 'leap February'],
    ['2023-02-28 23:59:00', null, '00:01:00', '2023-03-01 00:01:00', 'common February'],
    ['2024-04-30 23:59:00', null, '00:01:00', '2024-05-01 00:01:00', '30-day month'],
    ['2024-12-31 23:59:30', null, '00:00:10', '2025-01-01 00:00:10', 'year end'],
    ['2024-01-31 23:55:00', '2024-02-01', '00:05:00', '2024-02-01 00:05:00', 'explicit date off'],
    ['2024-01-31 23:55:00', '2024-01-31', '00:05:00', '2024-01-31 23:55:00', 'explicit end before start is clamped'],
    ['2024-01-31 12:00:00', '2024-01-30', '13:00:00', '2024-01-31 12:00:00', 'date off before date on is clamped'],
  ];
  for (const [timeOn, dateOff, timeOff, expected, name] of cases) t.equal(timeOffFor(timeOn, dateOff, timeOff), expected, name);
});
