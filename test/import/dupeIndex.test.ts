import t from 'tap';
import { DupeIndex } from '../../lib/import/dupeIndex.js';

/** A distinct key per n: callsign, minute and band all vary. */
function key(n: number): [string, string, string, string] {
  const minute = String(n % 60).padStart(2, '0');
  const hour = String(Math.floor(n / 60) % 24).padStart(2, '0');
  const day = String(1 + (Math.floor(n / 1440) % 28)).padStart(2, '0');
  return [`DL${n}ABC`, `2024-02-${day} ${hour}:${minute}`, ['20m', '40m', '2m'][n % 3]!, n % 2 ? 'CW' : 'SSB'];
}

t.test('every key is new once and a duplicate after, through many segment splits', async (t) => {
  // 16-slot segments: 20,000 keys split them about two thousand times and double the directory.
  const index = new DupeIndex(16);
  const count = 20_000;
  let added = 0;
  for (let n = 0; n < count; n++) if (index.add(...key(n))) added++;
  t.equal(added, count, 'no distinct key taken for a duplicate');
  t.equal(index.size, count);
  let again = 0;
  for (let n = 0; n < count; n++) if (index.add(...key(n))) again++;
  t.equal(again, 0, 'every key found again after the splits');
  t.equal(index.size, count, 'duplicates are not counted');
});

t.test('the duplicate rule: the minute counts, not the seconds; parts do not run into each other', async (t) => {
  const index = new DupeIndex();
  t.ok(index.add('DL1ABC', '2024-01-01 12:00:10', '20m', 'CW'));
  t.notOk(index.add('DL1ABC', '2024-01-01 12:00:59', '20m', 'CW'), 'same minute');
  t.notOk(index.add('DL1ABC', '2024-01-01 12:00', '20m', 'CW'), 'the minute alone');
  t.ok(index.add('DL1ABC', '2024-01-01 12:01', '20m', 'CW'), 'next minute');
  t.ok(index.add('DL1ABC', '2024-01-01 12:00', '40m', 'CW'), 'other band');
  t.ok(index.add('DL1ABC', '2024-01-01 12:00', '20m', 'SSB'), 'other mode');
  t.ok(index.add('DL1AB', '2024-01-01 12:00', 'C20m', 'SSB'), 'a character moved from one part to the next');
});

t.test('memory: what the keys need, 8 bytes a slot at about 37.5-75 % load', async (t) => {
  const index = new DupeIndex();
  const empty = index.bytes;
  t.equal(empty, 2 * 8192 * 8, 'one segment and the scratch segment, 64 KiB each');
  const count = 200_000;
  for (let n = 0; n < count; n++) index.add(...key(n));
  t.ok(index.bytes <= (count / 0.3) * 8 + empty, `${index.bytes} bytes for ${count} keys: at most about 27 bytes a key`);
  t.ok(index.bytes >= (count / 0.75) * 8, `${index.bytes} bytes for ${count} keys: no segment above 75 % load`);
});

t.test('segment sizes that masking cannot serve are refused', async (t) => {
  for (const slots of [0, 2, 12, 1000]) t.throws(() => new DupeIndex(slots), /segment slots must be a power of two from 4/, `${slots}`);
  const smallest = new DupeIndex(4);
  for (let n = 0; n < 100; n++) t.ok(smallest.add(...key(n)), `key ${n} in 4-slot segments`);
});
