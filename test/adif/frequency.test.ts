import t from 'tap';
import { formatMhz, parseFrequency } from '../../lib/adif/frequency.js';

t.test('MHz strings convert to exact Hz (values a float multiply gets wrong)', async (t) => {
  const cases: [string, number][] = [
    ['14.074', 14074000],
    ['0.1357', 135700],
    ['.1357', 135700],
    ['10368.1', 10368100000],
    ['1296.2', 1296200000],
    ['7.0745678', 7074568],
    ['7.0745674', 7074567],
    ['7.0745675', 7074568],
    ['3.5734999999', 3573500],
    ['50.313', 50313000],
    ['14', 14000000],
    ['14.', 14000000],
    ['0', 0],
    ['000144.300', 144300000],
    [' 14.074 ', 14074000],
  ];
  for (const [input, hz] of cases) t.equal(parseFrequency(input, 'MHz'), hz, JSON.stringify(input));
});

t.test('unit suffixes override the default unit', async (t) => {
  const cases: [string, number][] = [
    ['14.074M', 14074000],
    ['14.074m', 14074000],
    ['14.074MHz', 14074000],
    ['14.074 mhz', 14074000],
    ['7074 kHz', 7074000],
    ['7074.5k', 7074500],
    ['1.2965G', 1296500000],
    ['10.368 GHz', 10368000000],
    ['0.3T', 300000000000],
    ['14074000Hz', 14074000],
    ['14074000 hz', 14074000],
  ];
  for (const [input, hz] of cases) {
    t.equal(parseFrequency(input, 'MHz'), hz, `${JSON.stringify(input)} MHz default`);
    t.equal(parseFrequency(input, 'Hz'), hz, `${JSON.stringify(input)} Hz default`);
  }
});

t.test('Hz default: strings and numbers are whole Hz, fractions round half up', async (t) => {
  t.equal(parseFrequency('14074000', 'Hz'), 14074000);
  t.equal(parseFrequency('14074000.5', 'Hz'), 14074001);
  t.equal(parseFrequency('14074000.49', 'Hz'), 14074000);
  t.equal(parseFrequency(14074000, 'Hz'), 14074000);
  t.equal(parseFrequency(14074000.5, 'Hz'), 14074001);
  t.equal(parseFrequency(0, 'Hz'), 0);
  t.equal(parseFrequency(14.074, 'MHz'), 14074000, 'a JS number in MHz reads as its decimal form');
});

t.test('garbage is null', async (t) => {
  const garbage: (string | number)[] = [
    '', ' ', '.', 'abc', '14,074', '14.074.1', '-14.074', '+14.074', '1e3', '14 074', '14.074 MHz x', 'MHz', '14.074X',
    -1, Number.NaN, Number.POSITIVE_INFINITY, 1e21, '99999999999999999999',
  ];
  for (const input of garbage) t.equal(parseFrequency(input, 'MHz'), null, JSON.stringify(String(input)));
  t.equal(parseFrequency(-5, 'Hz'), null);
});

t.test('formatMhz writes exact MHz without trailing zeros', async (t) => {
  const cases: [number, string][] = [
    [14074000, '14.074'],
    [7074568, '7.074568'],
    [50313000, '50.313'],
    [14000000, '14'],
    [135700, '0.1357'],
    [1, '0.000001'],
    [0, '0'],
    [10368100000, '10368.1'],
  ];
  for (const [hz, text] of cases) t.equal(formatMhz(hz), text, String(hz));
  t.throws(() => formatMhz(1.5), RangeError);
  t.throws(() => formatMhz(-1), RangeError);
});

t.test('formatMhz ∘ parseFrequency round-trips generated values', async (t) => {
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  let failures = 0;
  for (let i = 0; i < 20000; i++) {
    const hz = (next() % 2000) * 1_000_000_000 + (next() % 1_000_000_000); // up to 2 THz
    const mhz = formatMhz(hz);
    if (parseFrequency(mhz, 'MHz') !== hz) failures++;
    const decimals = next() % 7;
    const text = `${next() % 100000}${decimals > 0 ? '.' + String(next()).padStart(10, '1').slice(0, decimals - 1) + '1' : ''}`;
    if (formatMhz(parseFrequency(text, 'MHz')!) !== text) failures++;
  }
  t.equal(failures, 0);
});

/** Seconds one call of `run` takes: the best of three batches, each repeated until it lasts 20 ms. */
/** Seconds per call of a batch of about 20 ms. */
function batchSecondsPerCall(run: () => void): number {
  let calls = 0;
  const started = performance.now();
  do {
    run();
    calls++;
  } while (performance.now() - started < 20);
  return (performance.now() - started) / calls;
}

/**
 * How much longer `large` takes than `small`: their batches interleaved over several rounds and
 * the fastest of each kept, so that a batch slowed by other work on the machine (the suite runs
 * files side by side) does not decide.
 */
function costRatio(large: () => void, small: () => void): number {
  let bestLarge = Infinity;
  let bestSmall = Infinity;
  for (let round = 0; round < 7; round++) {
    bestSmall = Math.min(bestSmall, batchSecondsPerCall(small));
    bestLarge = Math.min(bestLarge, batchSecondsPerCall(large));
  }
  return bestLarge / bestSmall;
}

t.test('linear time: a long run of whitespace inside a value is not backtracked over', async (t) => {
  // Fuzz seed 20261124 round 2141: FREQ "28.07428" + 214,372 newlines + garbage took 23 s, because
  // two \s* either side of the optional unit could split the run in every way. Four times the
  // run must cost about four times as much (quadratic: sixteen), compared on the same machine.
  const value = (run: number) => `28.07428${'\n'.repeat(run)}x`;
  const small = value(8192);
  const large = value(4 * 8192);
  t.equal(parseFrequency(large, 'MHz'), null);
  const ratio = costRatio(() => parseFrequency(large, 'MHz'), () => parseFrequency(small, 'MHz'));
  t.ok(ratio < 10, `4× the whitespace costs ${ratio.toFixed(1)}× the time (linear: 4, quadratic: 16)`);
  t.equal(parseFrequency(` \n 14.074 \t MHz \r\n`, 'MHz'), 14074000, 'whitespace around the number and unit still allowed');
});
