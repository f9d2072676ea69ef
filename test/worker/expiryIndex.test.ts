import t from 'tap';
import { createExpiryIndex } from '../../lib/worker/expiryIndex.js';

t.test('takes out exactly the items whose expiry second has passed', async (t) => {
  const index = createExpiryIndex<string>();
  index.add('a', 100);
  index.add('b', 100);
  index.add('c', 101);
  index.add('d', 200);
  index.add('d', 200);
  index.remove('b', 100);
  index.remove('x', 100);
  index.remove('c', 999);
  t.equal(index.size(), 3, 'a duplicate add and removes of what is not filed change nothing');
  t.same(index.takeExpired(100), [], 'valid during its expires second');
  t.same(index.takeExpired(101), ['a']);
  t.same(index.takeExpired(101), [], 'taken out once');
  t.same(index.takeExpired(1000).sort(), ['c', 'd']);
  t.equal(index.size(), 0);
});
