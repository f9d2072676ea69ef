import t from 'tap';
import { contests, isKnownContest } from '../../lib/catalog/contests.js';
import { subdivisionsFor } from '../../lib/catalog/subdivisions.js';

// Counts and rows read from data/adif-3.1.6.json.
t.test('contests: the Contest_ID enumeration', async (t) => {
  const list = contests();
  t.equal(list.length, 256);
  t.same(list.map((c) => c.id), Array.from({ length: 256 }, (_, i) => i + 1), 'ids are 1..256 in spec order');
  t.same(list[0], { id: 1, contest: '070-160M-SPRINT', name: 'PODXS Great Pumpkin Sprint', importOnly: false });
  t.same(list.find((c) => c.contest === 'CQ-WW-CW'), { id: 62, contest: 'CQ-WW-CW', name: 'CQ WW DX Contest (CW)', importOnly: false });
  t.same(list.filter((c) => c.importOnly).map((c) => c.contest), ['EA-RTTY', 'RAC', 'URE-DX', 'VIRGINIA QSO PARTY']);
  t.ok(Object.isFrozen(list) && Object.isFrozen(list[0]));
});

t.test('isKnownContest', async (t) => {
  t.ok(isKnownContest('CQ-WW-CW'));
  t.ok(isKnownContest('cq-ww-ssb'), 'case-insensitive, as ADIF enumerations are');
  t.ok(isKnownContest('VIRGINIA QSO PARTY'), 'import-only contests are known');
  t.notOk(isKnownContest('CQ-WW'));
  t.notOk(isKnownContest(''));
  t.notOk(isKnownContest(' CQ-WW-CW'));
});

t.test('subdivisions by DXCC entity', async (t) => {
  const canada = subdivisionsFor(1);
  t.equal(canada.length, 13);
  t.same(canada[0], { state: 'NS', name: 'Nova Scotia', importOnly: false });
  t.same(canada.map((s) => s.state), ['NS', 'QC', 'ON', 'MB', 'SK', 'AB', 'BC', 'NT', 'NB', 'NL', 'YT', 'PE', 'NU']);
  const usa = subdivisionsFor(291);
  t.equal(usa.length, 49, 'Alaska and Hawaii are entities of their own');
  t.same(usa.slice(0, 3), [
    { state: 'CT', name: 'Connecticut', importOnly: false },
    { state: 'ME', name: 'Maine', importOnly: false },
    { state: 'MA', name: 'Massachusetts', importOnly: false },
  ]);
  t.equal(subdivisionsFor(230).length, 16, 'Germany');
  t.equal(subdivisionsFor(54).length, 51, 'European Russia');
  t.match(subdivisionsFor(50).find((s) => s.state === 'DF'), { name: 'Distrito Federal', importOnly: true }, 'Mexico');
  t.same(subdivisionsFor(9999), []);
  t.same(subdivisionsFor(2), [], 'a deleted entity has none');
});

t.test('deleted subdivisions are left out', async (t) => {
  const asiaticRussia = subdivisionsFor(15);
  t.equal(asiaticRussia.length, 31);
  t.same(asiaticRussia.filter((s) => s.state === 'PM'), [{ state: 'PM', name: 'Perm`', importOnly: false }]);
  t.notOk(asiaticRussia.some((s) => s.state === 'UO'), 'Ust’-Ordynsky, deleted 2008');
  t.notOk(subdivisionsFor(5).some((s) => s.state === '051'), 'Märket, deleted');
  let total = 0;
  for (let dxcc = 0; dxcc < 1000; dxcc++) total += subdivisionsFor(dxcc).length;
  t.equal(total, 1948, '1965 records less 17 deleted');
});
