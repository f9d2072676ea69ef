import t from 'tap';
import { pagePlan, SEEK_FROM_OFFSET, totalPlan, type ListShape } from '../../lib/qso/list/plan.js';

/** The list planner's choices for each kind of filter (docs/storage.md): which counts or index a total and a page start read. */
const list = (shape: Partial<ListShape>): ListShape => ({
  format: 'json', newest: false, callsign: false, dated: false, buckets: false, sinceId: 0, idBelow: null, offset: 0, ...shape,
});

t.test('totals: sums where the four tables of counts keep the filters, counts where they do not', async (t) => {
  t.equal(totalPlan(list({})), 'scope-months');
  t.equal(totalPlan(list({ buckets: true })), 'buckets');
  t.equal(totalPlan(list({ dated: true })), 'date-months');
  t.equal(totalPlan(list({ dated: true, buckets: true })), 'count', 'no counts per month and filter since sql/050');
  t.equal(totalPlan(list({ callsign: true, buckets: true })), 'count');
  t.equal(totalPlan(list({ format: 'adif', idBelow: 5000 })), 'id-blocks');
  t.equal(totalPlan(list({ format: 'adif', idBelow: 5000, buckets: true })), 'below-cut');
  t.equal(totalPlan(list({ format: 'adif', idBelow: 5000, dated: true })), 'below-cut');
  t.equal(totalPlan(list({ sinceId: 100, idBelow: 5000, buckets: true })), 'smaller-side');
  t.equal(totalPlan(list({ sinceId: 100, idBelow: 5000, dated: true })), 'count');
  t.equal(totalPlan(list({ sinceId: 4999, idBelow: 5000, dated: true })), 'zero', 'nothing between the bounds');
});

t.test('page starts: seeks from the counts only where they keep the filters, and deep enough to pay', async (t) => {
  const deep = SEEK_FROM_OFFSET;
  t.equal(pagePlan(list({ offset: deep - 1 })), 'walk');
  t.equal(pagePlan(list({ offset: deep })), 'month-seek');
  t.equal(pagePlan(list({ offset: deep, dated: true })), 'month-seek');
  t.equal(pagePlan(list({ offset: deep, buckets: true })), 'walk', 'filters walk the time index, which holds their columns');
  t.equal(pagePlan(list({ format: 'adif', offset: deep })), 'id-seek');
  t.equal(pagePlan(list({ format: 'adif', dated: true })), 'judge-sort');
  t.equal(pagePlan(list({ format: 'adif', dated: true, buckets: true })), 'judge-sort');
  t.equal(pagePlan(list({ format: 'adif', offset: deep, buckets: true })), 'walk');
  t.equal(pagePlan(list({ offset: deep, newest: true })), 'walk', 'limit: the newest N');
  t.equal(pagePlan(list({ format: 'adif', offset: deep, sinceId: 10 })), 'walk', 'since_id pages have nothing to skip');
  t.equal(pagePlan(list({ offset: deep, callsign: true })), 'walk');
});
