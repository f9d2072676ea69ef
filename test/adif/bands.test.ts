import t from 'tap';
import { BANDS, bandFromFrequency, isKnownBand, parseBandFilter } from '../../lib/adif/bands.js';

t.test('the band table is the ADIF enumeration in Hz', async (t) => {
  t.equal(BANDS.length, 33);
  t.same(BANDS[0], { name: '2190m', lowerHz: 135700, upperHz: 137800 });
  t.same(BANDS.at(-1), { name: 'submm', lowerHz: 300_000_000_000, upperHz: 7_500_000_000_000 });
  t.same(
    BANDS.find((band) => band.name === '5m'),
    { name: '5m', lowerHz: 54_000_001, upperHz: 69_900_000 },
  );
  t.same(
    BANDS.find((band) => band.name === '1.25m'),
    { name: '1.25m', lowerHz: 222_000_000, upperHz: 225_000_000 },
  );
  for (let i = 1; i < BANDS.length; i++) t.ok(BANDS[i - 1]!.upperHz < BANDS[i]!.lowerHz, `${BANDS[i]!.name} follows`);
});

t.test('bandFromFrequency: inclusive edges, nothing just outside', async (t) => {
  const cases: [number, string | null][] = [
    [135_700, '2190m'],
    [137_800, '2190m'],
    [135_699, null],
    [137_801, null],
    [475_000, '630m'],
    [1_800_000, '160m'],
    [2_000_000, '160m'],
    [2_000_001, null],
    [1_799_999, null],
    [5_357_000, '60m'],
    [7_000_000, '40m'],
    [7_074_000, '40m'],
    [7_300_000, '40m'],
    [7_300_001, null],
    [6_999_999, null],
    [10_136_000, '30m'],
    [14_074_000, '20m'],
    [14_350_000, '20m'],
    [14_350_001, null],
    [18_100_000, '17m'],
    [21_074_000, '15m'],
    [24_915_000, '12m'],
    [28_074_000, '10m'],
    [29_700_000, '10m'],
    [50_313_000, '6m'],
    [54_000_000, '6m'],
    [54_000_001, '5m'],
    [70_200_000, '4m'],
    [144_300_000, '2m'],
    [223_500_000, '1.25m'],
    [432_200_000, '70cm'],
    [1_296_200_000, '23cm'],
    [2_320_000_000, '13cm'],
    [10_368_100_000, '3cm'],
    [24_048_000_000, '1.25cm'],
    [250_000_000_000, '1mm'],
    [250_000_000_001, null],
    [300_000_000_000, 'submm'],
    [7_500_000_000_000, 'submm'],
    [7_500_000_000_001, null],
    [0, null],
    [100, null],
  ];
  for (const [hz, band] of cases) t.equal(bandFromFrequency(hz), band, String(hz));
});

t.test('isKnownBand is case-insensitive and knows only ADIF bands', async (t) => {
  for (const name of ['20m', '20M', '70CM', '1.25m', '1.25cm', '2190m', 'SUBMM', 'submm']) t.ok(isKnownBand(name), name);
  for (const name of ['SAT', '1.2cm', '11m', '', '20']) t.notOk(isKnownBand(name), name);
});

t.test('parseBandFilter: SAT pseudo-band, bands lower-cased, blank is no filter', async (t) => {
  t.same(parseBandFilter('sat'), { kind: 'sat' });
  t.same(parseBandFilter('SAT'), { kind: 'sat' });
  t.same(parseBandFilter('Sat'), { kind: 'sat' });
  t.same(parseBandFilter('20M'), { kind: 'band', band: '20m' });
  t.same(parseBandFilter(' 70cm '), { kind: 'band', band: '70cm' });
  t.same(parseBandFilter('11m'), { kind: 'band', band: '11m' }, 'unknown bands match nothing rather than fail');
  t.equal(parseBandFilter(''), null);
  t.equal(parseBandFilter('  '), null);
});
