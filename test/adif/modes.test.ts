import t from 'tap';
import { MODE_TABLE, isKnownMode, mainMode, normalizeRigMode, splitMode } from '../../lib/adif/modes.js';

t.test('a submode splits into its main mode', async (t) => {
  const cases: [string, string, string][] = [
    ['FT4', 'MFSK', 'FT4'],
    ['ft4', 'MFSK', 'FT4'],
    ['JS8', 'MFSK', 'JS8'],
    ['Q65', 'MFSK', 'Q65'],
    ['FST4', 'MFSK', 'FST4'],
    ['USB', 'SSB', 'USB'],
    ['LSB', 'SSB', 'LSB'],
    ['usb', 'SSB', 'USB'],
    ['PSK31', 'PSK', 'PSK31'],
    ['PSK63', 'PSK', 'PSK63'],
    ['DMR', 'DIGITALVOICE', 'DMR'],
    ['C4FM', 'DIGITALVOICE', 'C4FM'],
    ['DSTAR', 'DIGITALVOICE', 'DSTAR'],
    ['VARAHF', 'DYNAMIC', 'VARAHF'],
    ['VARA HF', 'DYNAMIC', 'VARA HF'],
    ['VARAFM9600', 'DYNAMIC', 'VARAFM9600'],
    ['JT65B', 'JT65', 'JT65B'],
    ['OLIVIA 8/250', 'OLIVIA', 'OLIVIA 8/250'],
  ];
  for (const [input, mode, submode] of cases) t.same(splitMode(input), { mode, submode }, input);
});

t.test('a mode stays a mode and keeps the record’s SUBMODE', async (t) => {
  t.same(splitMode('FT8'), { mode: 'FT8', submode: null });
  t.same(splitMode('CW'), { mode: 'CW', submode: null });
  t.same(splitMode('ssb'), { mode: 'SSB', submode: null });
  t.same(splitMode('MFSK', 'FT4'), { mode: 'MFSK', submode: 'FT4' }, 'MODE=MFSK SUBMODE=FT4');
  t.same(splitMode('MFSK', 'ft4'), { mode: 'MFSK', submode: 'FT4' });
  t.same(splitMode('FT4', undefined), { mode: 'MFSK', submode: 'FT4' }, 'MODE=FT4 alone');
  t.same(splitMode('FT4', 'FT4'), { mode: 'MFSK', submode: 'FT4' });
  t.same(splitMode('SSB', 'USB'), { mode: 'SSB', submode: 'USB' });
  t.same(splitMode('SSB', ''), { mode: 'SSB', submode: null });
  t.same(splitMode('PSK', 'Custom 1'), { mode: 'PSK', submode: 'Custom 1' }, 'unknown submode kept as given');
});

t.test('unknown and empty modes', async (t) => {
  t.same(splitMode('foo'), { mode: 'FOO', submode: null });
  t.same(splitMode('MyMode', 'sub'), { mode: 'MYMODE', submode: 'sub' });
  t.same(splitMode(''), { mode: '', submode: null }, 'never AM');
  t.same(splitMode('  '), { mode: '', submode: null });
  t.same(splitMode('', 'FT4'), { mode: 'MFSK', submode: 'FT4' }, 'a known submode names the mode');
  t.same(splitMode('', 'xyz'), { mode: '', submode: 'xyz' });
});

t.test('mainMode and isKnownMode', async (t) => {
  t.equal(mainMode('FT4'), 'MFSK');
  t.equal(mainMode('usb'), 'SSB');
  t.equal(mainMode('FT8'), 'FT8');
  t.equal(mainMode('MFSK'), 'MFSK');
  t.equal(mainMode('foo'), 'FOO');
  for (const mode of ['FT8', 'ft4', 'SSB', 'USB', 'AM', 'FM', 'CW', 'DIGITALVOICE', 'VARAHF', 'PSK31']) t.ok(isKnownMode(mode), mode);
  for (const mode of ['', 'FOO', 'USB-D', 'CW-U']) t.notOk(isKnownMode(mode), mode);
});

t.test('the mode table follows the ADIF enumerations', async (t) => {
  const byMode = new Map(MODE_TABLE.map((entry) => [entry.mode, entry.submodes]));
  t.same(byMode.get('SSB'), ['LSB', 'USB']);
  t.ok(byMode.get('MFSK')!.includes('FT4'));
  t.ok(byMode.get('MFSK')!.includes('MFSK128L'));
  t.same(byMode.get('FT8'), []);
  t.notOk(byMode.has('PSK31'), 'import-only modes are submodes, not main modes');
  t.notOk(byMode.has('C4FM'));
  t.equal(MODE_TABLE[0]!.mode, 'AM');
});

t.test('normalizeRigMode folds rig-specific variants', async (t) => {
  const cases: [string, string][] = [
    ['CW-U', 'CW'],
    ['CW-L', 'CW'],
    ['CW-R', 'CW'],
    ['CWU', 'CW'],
    ['CWL', 'CW'],
    ['cw-u', 'CW'],
    ['RTTY-L', 'RTTY'],
    ['RTTY-U', 'RTTY'],
    ['rtty-r', 'RTTY'],
    ['USB-D', 'USB'],
    ['USB-D1', 'USB'],
    ['LSB-D', 'LSB'],
    ['lsb-d1', 'LSB'],
    ['USB', 'USB'],
    ['fm', 'FM'],
    ['FT8', 'FT8'],
    ['USB-D2', 'USB-D2'],
  ];
  for (const [input, mode] of cases) t.equal(normalizeRigMode(input), mode, input);
});
