import t from 'tap';
import { ctyTable, parseCtyCsv } from '../../lib/dxcc/ctyTable.js';
import { resolveCallsign } from '../../lib/dxcc/resolver.js';

// Expected entities read from data/cty.csv: [call, ADIF code, cty.csv name, primary prefix].
const ENTITY_CASES: readonly [string, number, string, string][] = [
  ['G4ABC', 223, 'England', 'G'],
  ['M0ABC', 223, 'England', 'G'],
  ['DL1ABC', 230, 'Fed. Rep. of Germany', 'DL'],
  ['W1AW', 291, 'United States', 'K'],
  ['VE3ABC', 1, 'Canada', 'VE'],
  ['JA1ABC', 339, 'Japan', 'JA'],
  ['VK2ABC', 150, 'Australia', 'VK'],
  ['ZL1ABC', 170, 'New Zealand', 'ZL'],
  ['PY1ABC', 108, 'Brazil', 'PY'],
  ['UA9ABC', 15, 'Asiatic Russia', 'UA9'],
  ['UA3ABC', 54, 'European Russia', 'UA'],
  ['KH6ABC', 110, 'Hawaii', 'KH6'],
  ['KL7ABC', 6, 'Alaska', 'KL'],
  ['9A2AA', 497, 'Croatia', '9A'],
  ['HC1ABC', 120, 'Ecuador', 'HC'],
  ['HC8ABC', 71, 'Galapagos Islands', 'HC8'],
  ['EA8ABC', 29, 'Canary Islands', 'EA8'],
  ['VP2EAB', 12, 'Anguilla', 'VP2E'],
  // Normalisation: case, blanks, slashed zero.
  [' g4abc ', 223, 'England', 'G'],
  ['DLØABC', 230, 'Fed. Rep. of Germany', 'DL'],
  // Portable forms.
  ['DL/G4ABC', 230, 'Fed. Rep. of Germany', 'DL'],
  ['G4ABC/DL', 230, 'Fed. Rep. of Germany', 'DL'],
  ['F/G4ABC/P', 227, 'France', 'F'],
  ['M/DL1ABC', 223, 'England', 'G'],
  ['9A/DL1ABC', 497, 'Croatia', '9A'],
  ['G4ABC/P', 223, 'England', 'G'],
  ['G4ABC/M', 223, 'England', 'G'],
  ['G4ABC/QRP', 223, 'England', 'G'],
  ['W1AW/A', 291, 'United States', 'K'],
  ['W1AW/B', 291, 'United States', 'K'],
  ['G4ABC/ANT', 223, 'England', 'G'],
  ['W1AW/KH6', 110, 'Hawaii', 'KH6'],
  ['KH6/W1AW', 110, 'Hawaii', 'KH6'],
  ['W1AW/KH6/P', 110, 'Hawaii', 'KH6'],
  ['W1AW/4', 291, 'United States', 'K'],
  ['VP2E/K1ABC', 12, 'Anguilla', 'VP2E'],
  ['K1ABC/VP2E', 12, 'Anguilla', 'VP2E'],
  // Exact =CALL entries whose entity differs from what their prefix alone gives.
  ['AG7XY', 110, 'Hawaii', 'KH6'], // AG is United States
  ['4U1UN', 289, 'United Nations HQ', '4U1U'], // 4U is listed under Italy
  ['4U1UN/P', 289, 'United Nations HQ', '4U1U'],
  ['KH6EE/7', 291, 'United States', 'K'], // KH6 is Hawaii
  ['HD5MW/8', 71, 'Galapagos Islands', 'HC8'], // HD is Ecuador
  ['HC8M/5', 120, 'Ecuador', 'HC'], // HC8 is Galapagos
  ['EA5RKB/8', 29, 'Canary Islands', 'EA8'], // EA is Spain
  ['IT9CLY/4', 248, 'Italy', 'I'], // IT9 is Sicily
  ['JG8NQJ/JD1', 177, 'Minami Torishima', 'JD/m'],
  ['3Y/LB5SH', 24, 'Bouvet', '3Y/b'],
  ['3Y/LB5SH/P', 24, 'Bouvet', '3Y/b'],
  // Rows marked `*` (not on the DXCC list) keep their own name and carry the parent's code.
  ['IT9ABC', 248, 'Sicily', 'IT9'],
  ['TA1ABC', 390, 'European Turkey', 'TA1'],
  ['TA3AC/1', 390, 'European Turkey', 'TA1'],
  ['4U1VIC', 206, 'Vienna Intl Ctr', '4U1V'], // also listed under Austria: the `*` row wins
  ['GB3LER', 279, 'Shetland Islands', 'GM/s'], // also listed under Scotland
];

t.test('callsigns resolve to the entity cty.csv gives them', async (t) => {
  for (const [call, adif, name, prefix] of ENTITY_CASES) {
    t.match(resolveCallsign(call), { adif, name, prefix }, call);
  }
});

t.test('zone overrides of prefixes and exact calls are applied', async (t) => {
  t.match(resolveCallsign('VE3ABC'), { cqz: 5, ituz: 9 }, 'entity defaults');
  t.match(resolveCallsign('VE2ABC'), { cqz: 5, ituz: 4 }, 'VA2..VE2[4]');
  t.match(resolveCallsign('VY0ABC'), { cqz: 2, ituz: 4 }, 'VY0(2)[4]');
  t.match(resolveCallsign('VA2VVV'), { adif: 1, cqz: 2, ituz: 4 }, '=VA2VVV(2)[4]');
  t.match(resolveCallsign('R1IABC'), { adif: 54, cqz: 17, ituz: 20 }, 'R1I(17)[20]');
  t.match(resolveCallsign('PT8ABC'), { adif: 108, cqz: 11, ituz: 12 }, 'PT8[12]');
  t.match(resolveCallsign('VK4ABC'), { adif: 150, cqz: 30, ituz: 55 }, 'VK4[55]');
  t.match(resolveCallsign('VK4KR/6'), { adif: 150, cqz: 29, ituz: 58 }, '=VK4KR/6(29)[58]');
  t.match(resolveCallsign('KH6EE/7'), { adif: 291, cqz: 3, ituz: 6 }, '=KH6EE/7(3)[6]');
});

t.test('positions are east positive and continents come from the row', async (t) => {
  t.same(resolveCallsign('W1AW'), {
    adif: 291, name: 'United States', prefix: 'K', continent: 'NA', cqz: 5, ituz: 8, lat: 37.6, long: -91.87,
  });
  t.match(resolveCallsign('DL1ABC'), { continent: 'EU', lat: 51, long: 10 });
  t.match(resolveCallsign('JA1ABC'), { continent: 'AS', lat: 36.4, long: 138.38 });
  t.match(resolveCallsign('PY1ABC'), { continent: 'SA', lat: -10, long: -53 });
  t.match(resolveCallsign('IG9ABC'), { adif: 248, continent: 'AF' });
});

t.test('no entity', async (t) => {
  for (const call of ['G4ABC/MM', 'W1AW/AM', 'DL/G4ABC/MM', '', '   ', '/', 'G4ABC/', 'G4ABC//P', '???', 'W1AW-1', 'QQ1ABC', 'DL/G4ABC/KH6']) {
    t.equal(resolveCallsign(call), null, JSON.stringify(call));
  }
});

t.test('answers are shared and frozen', async (t) => {
  const first = resolveCallsign('G4ABC');
  t.equal(resolveCallsign('G4XYZ'), first);
  t.ok(Object.isFrozen(first));
});

t.test('cty.csv parsing', async (t) => {
  const table = parseCtyCsv(
    [
      'XX,Test Land,999,EU,14,27,50.00,-10.00,-1.0,XX XY(5) XZ[9] =XX1ABC(6)[10] XW<40.5/-20.25> XV{AF} XU~2.0~;',
      '*XX1,Test Island,999,EU,15,28,51.00,0.00,0.0,XX1;',
      '',
    ].join('\r\n'),
  );
  const [land, island] = table.entities;
  t.match(land, { primaryPrefix: 'XX', name: 'Test Land', adif: 999, onDxccList: true, long: 10, utcOffset: 1 });
  t.match(island, { primaryPrefix: 'XX1', onDxccList: false, long: 0 });
  t.ok(Object.is(island!.long, 0), 'no negative zero');
  const byText = new Map(table.prefixes.map((p) => [p.text, p]));
  t.match(byText.get('XX'), { exactCall: false, cqz: 14, ituz: 27, entity: land });
  t.match(byText.get('XY'), { cqz: 5, ituz: 27 });
  t.match(byText.get('XZ'), { cqz: 14, ituz: 9 });
  t.match(byText.get('XX1ABC'), { exactCall: true, cqz: 6, ituz: 10 });
  t.match(byText.get('XW'), { lat: 40.5, long: 20.25 });
  t.match(byText.get('XV'), { continent: 'AF' });
  t.match(byText.get('XU'), { utcOffset: -2 });
  t.throws(() => parseCtyCsv('XX,Test,999,EU,14,27,50,10,1,XX\n'), /line 1: .*";"/);
  t.throws(() => parseCtyCsv('\nXX,Test,999,EU,14,27,50,10,1,XX?X;'), /line 2: malformed prefix entry "XX\?X"/);
  t.throws(() => parseCtyCsv('XX,Test,nine,EU,14,27,50,10,1,XX;'), /DXCC number/);
});

t.test('the shipped table', async (t) => {
  const { entities, prefixes } = ctyTable();
  t.equal(entities.length, 346);
  t.same(entities.filter((e) => !e.onDxccList).map((e) => e.primaryPrefix), ['4U1V', 'GM/s', 'IG9', 'IT9', 'JW/b', 'TA1']);
  t.ok(prefixes.length > 8000);
});
