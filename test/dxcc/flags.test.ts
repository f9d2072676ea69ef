import t from 'tap';
import { dxccEntities } from '../../lib/dxcc/entities.js';
import { dxccFlag, regionFlag } from '../../lib/dxcc/flags.js';

t.test('every current entity flies a flag, except those of no country', async (t) => {
  const current = dxccEntities('name').filter((e) => !e.deleted && e.adif !== 0);
  t.equal(current.length, 340);
  const without = current.filter((e) => dxccFlag(e.adif) === '').map((e) => e.adif);
  t.strictSame(without.sort((a, b) => a - b), [246, 247, 506], 'Order of Malta, Spratly Is., Scarborough Reef');
  t.equal(dxccFlag(2), '', 'deleted entities have none');
  t.equal(dxccFlag(0), '');
});

t.test('regions become regional indicator pairs or tag sequences', async (t) => {
  t.equal(regionFlag('DE'), '\u{1f1e9}\u{1f1ea}');
  t.equal(regionFlag('GB-SCT'), '\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}');
  t.equal(dxccFlag(279), regionFlag('GB-SCT'));
  t.equal(dxccFlag(29), regionFlag('ES'), 'Canary Is.: Spain');
  t.equal(dxccFlag(5), regionFlag('AX'), 'Aland Is. has a code of its own');
  t.throws(() => regionFlag('de'), RangeError);
  t.throws(() => regionFlag('GB-XYZ'), RangeError);
});
