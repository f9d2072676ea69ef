import t from 'tap';
import { isValidGrid, normalizeGrid, normalizeGridExtension, normalizeGridList } from '../../lib/adif/grid.js';

t.test('normalizeGrid: 2 to 10 characters, upper-cased', async (t) => {
  const cases: [string, string][] = [
    ['JO', 'JO'],
    ['jo62', 'JO62'],
    ['JO62qm', 'JO62QM'],
    ['jo62QM', 'JO62QM'],
    ['JO62QM45', 'JO62QM45'],
    ['jo62qm45ab', 'JO62QM45AB'],
    ['RR99XX99XX', 'RR99XX99XX'],
    ['AA00AA', 'AA00AA'],
    [' FN31pr ', 'FN31PR'],
  ];
  for (const [input, grid] of cases) t.equal(normalizeGrid(input), grid, input);
});

t.test('normalizeGrid rejects what is not a locator', async (t) => {
  const rejects = ['', 'J', 'JO6', 'JO62Q', 'SA00', 'JS62', 'JO62QY', 'JO62QMA5', 'JO62QM45AY', 'JO62QM45AB12', '62JO', 'JO 62', 'JO62QM4'];
  for (const input of rejects) {
    t.equal(normalizeGrid(input), null, JSON.stringify(input));
    t.notOk(isValidGrid(input), JSON.stringify(input));
  }
  t.ok(isValidGrid('jo62qm'));
});

t.test('normalizeGridExtension: 2 or 4 characters, extra ones ignored', async (t) => {
  t.equal(normalizeGridExtension('bq'), 'BQ');
  t.equal(normalizeGridExtension('BQ42'), 'BQ42');
  t.equal(normalizeGridExtension('BQ42XY'), 'BQ42', 'ADIF: characters beyond the fourth are ignored on import');
  t.equal(normalizeGridExtension('B'), null);
  t.equal(normalizeGridExtension('BZ'), null);
  t.equal(normalizeGridExtension('BQ4'), null);
  t.equal(normalizeGridExtension('42'), null);
});

t.test('normalizeGridList: comma list of 4- or 6-character locators', async (t) => {
  t.equal(normalizeGridList('EM98,FM08,EM97,FM07'), 'EM98,FM08,EM97,FM07');
  t.equal(normalizeGridList('em98, fm08'), 'EM98,FM08');
  t.equal(normalizeGridList('EM98,FM08,'), 'EM98,FM08');
  t.equal(normalizeGridList('EM98qm,FM08'), 'EM98QM,FM08');
  t.equal(normalizeGridList('EM98,FM'), null);
  t.equal(normalizeGridList('EM98,XX99'), null);
  t.equal(normalizeGridList('EM98;FM08'), null);
  t.equal(normalizeGridList(','), null);
});
