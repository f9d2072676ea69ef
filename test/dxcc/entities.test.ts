import t from 'tap';
import { dxccEntities, dxccEntity } from '../../lib/dxcc/entities.js';

// Counts read from data/adif-3.1.6.json (DXCC_Entity_Code: 403 records, 62 deleted)
// and data/cty.csv (340 entities on the DXCC list).
t.test('every ADIF DXCC code is in the catalogue', async (t) => {
  const entities = dxccEntities('name');
  t.equal(entities.length, 403);
  t.equal(new Set(entities.map((e) => e.adif)).size, 403);
  t.equal(entities.filter((e) => e.deleted).length, 62);
  t.equal(entities.filter((e) => e.prefix !== null).length, 340);
  t.ok(entities.filter((e) => e.deleted).every((e) => e.prefix === null && e.cqz === null), 'deleted entities have no cty.csv data');
});

t.test('known rows', async (t) => {
  t.same(dxccEntity(230), {
    adif: 230, name: 'Fed. Rep. of Germany', adifName: 'FEDERAL REPUBLIC OF GERMANY', countryName: 'Federal Republic Of Germany',
    prefix: 'DL', continent: 'EU', cqz: 14, ituz: 28, lat: 51, long: 10, deleted: false,
  });
  t.match(dxccEntity(291), { name: 'United States', prefix: 'K', continent: 'NA', cqz: 5, ituz: 8, long: -91.87 });
  t.match(dxccEntity(1), { name: 'Canada', prefix: 'VE' });
  t.match(dxccEntity(248), { name: 'Italy', prefix: 'I' }, 'the DXCC row, not the `*` Sicily row');
  t.match(dxccEntity(206), { name: 'Austria', prefix: 'OE' }, 'the DXCC row, not the `*` Vienna Intl Ctr row');
  t.match(dxccEntity(489), { name: 'Conway Reef', prefix: '3D2/c' });
  t.same(dxccEntity(2), {
    adif: 2, name: 'ABU AIL IS.', adifName: 'ABU AIL IS.', countryName: 'Abu Ail Is.', prefix: null, continent: null, cqz: null, ituz: null,
    lat: null, long: null, deleted: true,
  });
  t.match(dxccEntity(0), { name: /^None/, countryName: '', prefix: null, deleted: false });
  // The original's ucwords(strtolower(name), "- (/"): after a hyphen, space, parenthesis or slash.
  t.match(dxccEntity(501), { adifName: 'BOSNIA-HERZEGOVINA', countryName: 'Bosnia-Herzegovina' });
  t.match(dxccEntity(502), { countryName: 'North Macedonia (Republic Of)' });
  t.match(dxccEntity(344), { countryName: "Democratic People's Rep. Of Korea" });
  t.equal(dxccEntity(9999), undefined);
});

t.test('ordered by name, case-insensitively', async (t) => {
  const names = dxccEntities('name').map((e) => e.name);
  t.same(names.slice(0, 4), ['ABU AIL IS.', 'Afghanistan', 'Agalega & St. Brandon', 'Aland Islands']);
  t.same(names, [...names].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })));
});

t.test('ordered by prefix, entities without one last', async (t) => {
  const entities = dxccEntities('prefix');
  t.same(entities.slice(0, 4).map((e) => e.prefix), ['1A', '1S', '3A', '3B6']);
  const prefixes = entities.slice(0, 340).map((e) => e.prefix);
  t.same(prefixes, [...prefixes].sort(), 'character order');
  t.ok(entities.slice(340).every((e) => e.prefix === null));
  t.equal(entities.length, 403);
});

t.test('the catalogue cannot be changed by a caller', async (t) => {
  t.ok(Object.isFrozen(dxccEntities('name')));
  t.ok(Object.isFrozen(dxccEntity(230)));
});
