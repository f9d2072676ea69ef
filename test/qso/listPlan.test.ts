import t from 'tap';
import { planList, SEEK_FROM_OFFSET, type ConfirmationShape, type ListShape } from '../../lib/qso/list/plan.js';

/** The list planner's choices for each kind of filter (docs/storage.md): which counts or index a total and a page start read. */
const list = (shape: Partial<ListShape>): ListShape => ({
  format: 'json', newest: false, callsign: false, dated: false, bucketKinds: 0, qslOnly: false, sinceId: 0, idBelow: null, offset: 0, perPage: 50, ...shape,
});
const totalPlan = (shape: ListShape) => planList(shape).total;
const pagePlan = (shape: ListShape) => planList(shape).page;
const readPlan = (shape: ListShape) => planList(shape).read;

t.test('totals: sums where the four tables of counts keep the filters, counts where they do not', async (t) => {
  t.equal(totalPlan(list({})), 'scope-months');
  t.equal(totalPlan(list({ bucketKinds: 1 })), 'buckets');
  t.equal(totalPlan(list({ dated: true })), 'date-months');
  t.equal(totalPlan(list({ dated: true, bucketKinds: 1 })), 'count', 'no counts per month and band or mode since sql/050');
  t.equal(totalPlan(list({ dated: true, bucketKinds: 1, qslOnly: true })), 'date-months', 'the month counts keep the statuses (sql/057)');
  t.equal(totalPlan(list({ bucketKinds: 1, qslOnly: true })), 'buckets');
  t.equal(totalPlan(list({ format: 'adif', idBelow: 5000, dated: true, bucketKinds: 1, qslOnly: true })), 'below-cut');
  t.equal(totalPlan(list({ sinceId: 100, idBelow: 5000, dated: true, bucketKinds: 1, qslOnly: true })), 'count');
  t.equal(totalPlan(list({ callsign: true, bucketKinds: 1 })), 'count');
  t.equal(totalPlan(list({ format: 'adif', idBelow: 5000 })), 'id-blocks');
  t.equal(totalPlan(list({ format: 'adif', idBelow: 5000, bucketKinds: 1 })), 'below-cut');
  t.equal(totalPlan(list({ format: 'adif', idBelow: 5000, dated: true })), 'below-cut');
  t.equal(totalPlan(list({ sinceId: 100, idBelow: 5000, bucketKinds: 1 })), 'smaller-side');
  t.equal(totalPlan(list({ sinceId: 100, idBelow: 5000, dated: true })), 'count');
  t.equal(totalPlan(list({ sinceId: 4999, idBelow: 5000, dated: true })), 'zero', 'nothing between the bounds');
});

t.test('page starts: seeks from the counts only where they keep the filters, and deep enough to pay', async (t) => {
  const deep = SEEK_FROM_OFFSET;
  t.equal(pagePlan(list({ offset: deep - 1 })), 'walk');
  t.equal(pagePlan(list({ offset: deep })), 'month-seek');
  t.equal(pagePlan(list({ offset: deep, dated: true })), 'month-seek');
  t.equal(pagePlan(list({ offset: deep, bucketKinds: 1 })), 'walk', 'band and mode walk the time index, which holds their columns');
  t.equal(pagePlan(list({ offset: deep, bucketKinds: 1, qslOnly: true })), 'month-seek', 'qsl_filter seeks its month (sql/057)');
  t.equal(pagePlan(list({ offset: deep, dated: true, bucketKinds: 1, qslOnly: true })), 'month-seek');
  t.equal(pagePlan(list({ offset: deep - 1, bucketKinds: 1, qslOnly: true })), 'walk');
  t.equal(pagePlan(list({ format: 'adif', offset: deep, bucketKinds: 1, qslOnly: true })), 'walk', 'in id order: no counts per block and status');
  t.equal(pagePlan(list({ format: 'adif', offset: deep })), 'id-seek');
  t.equal(pagePlan(list({ format: 'adif', dated: true })), 'judge-sort');
  t.equal(pagePlan(list({ format: 'adif', dated: true, bucketKinds: 1 })), 'judge-sort');
  t.equal(pagePlan(list({ format: 'adif', offset: deep, bucketKinds: 1 })), 'walk');
  t.equal(pagePlan(list({ offset: deep, newest: true })), 'walk', 'limit: the newest N');
  t.equal(pagePlan(list({ format: 'adif', offset: deep, sinceId: 10 })), 'walk', 'since_id pages have nothing to skip');
  t.equal(pagePlan(list({ offset: deep, callsign: true })), 'walk');
});

t.test('reads: a plan kept per connection only where the values cannot change it', async (t) => {
  t.equal(readPlan(list({})), 'kept-rows');
  t.equal(readPlan(list({ perPage: 100, offset: SEEK_FROM_OFFSET })), 'kept-rows', 'a deep page too: its seek is a range on the same index');
  t.equal(readPlan(list({ dated: true, bucketKinds: 1 })), 'kept-rows');
  t.equal(readPlan(list({ newest: true, perPage: 100 })), 'kept-rows');
  t.equal(readPlan(list({ perPage: 101 })), 'copy', 'longer pages are COPY');
  t.equal(readPlan(list({ callsign: true })), 'copy', 'a callsign: its plan depends on how many QSOs the call has');
  t.equal(readPlan(list({ bucketKinds: 2 })), 'copy', 'two kinds of filter');
  t.equal(readPlan(list({ format: 'adif', perPage: 50 })), 'copy', 'ADIF pages are COPY');
});

t.test('the confirmation list: a date range judged by its size, totals from the buckets where they keep the filters', async (t) => {
  const confirmations = (shape: Partial<ConfirmationShape>): ConfirmationShape => ({
    list: 'confirmations', dated: false, receivedSince: false, buckets: false, callsign: false, ...shape,
  });
  t.same(planList(confirmations({})), { page: 'received-order', total: 'buckets-in-page' });
  t.same(planList(confirmations({ buckets: true })), { page: 'received-order', total: 'buckets' });
  t.same(planList(confirmations({ dated: true })), { page: 'judge-range', total: 'months' });
  t.same(planList(confirmations({ dated: true, buckets: true })), { page: 'judge-range', total: 'statuses' });
  t.same(planList(confirmations({ dated: true, receivedSince: true })), { page: 'judge-range', total: 'count' });
  t.same(planList(confirmations({ receivedSince: true, buckets: true })), { page: 'received-order', total: 'count' });
  t.same(planList(confirmations({ callsign: true })), { page: 'received-order', total: 'count' });
});
