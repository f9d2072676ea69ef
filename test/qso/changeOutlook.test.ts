import t from 'tap';
import { testDatabase } from '../helpers/db.js';
import { createOperator } from '../helpers/fixtures.js';
import { seedQsos } from '../helpers/qsoRows.js';
import { bindForCopy } from '../../lib/db/settingParams.js';
import { changeBounds } from '../../lib/qso/changeBounds.js';
import { changePageStatements, pageOutlook, type ChangeRequest, type PageOutlook } from '../../lib/qso/changeFeed.js';
import { ROWS_PAGE_MAX } from '../../lib/db/pageRows.js';
import type { ChangeCursor } from '../../lib/qso/changeCursor.js';

/**
 * A feed page's outlook, read before the page: where a full page ends (the Link to the next
 * one) and whether the page is small enough to read as rows. Checked at the edges: a page with
 * exactly perPage changes has no next one, ROWS_PAGE_MAX changes ahead are small, one more is not.
 */
t.test('the outlook of a feed page', async (t) => {
  const db = await testDatabase(t);
  const op = await createOperator(db.pool);
  const count = ROWS_PAGE_MAX + 1;
  await seedQsos(db.pool, [op.stationId],
    `INSERT INTO qso (station_id, call, time_on, band, mode)
     SELECT $1, 'W' || n || 'OUT', timestamp '2024-01-01' + n * interval '1 minute', '20m', 'CW' FROM generate_series(1, $2::int) n`,
    [op.stationId, count]);
  const { rows: stored } = await db.pool.query<{ txid: string; id: string }>('SELECT txid::text, id FROM qso WHERE station_id = $1 ORDER BY txid, id', [op.stationId]);
  const bounds = await changeBounds(db.pool, [op.stationId]);

  const outlookOf = async (perPage: number, after: number): Promise<PageOutlook> => {
    // A cursor on the after-th change (none: from the start).
    const cursor: ChangeCursor | null = after === 0 ? null : { txid: stored[after - 1]!.txid, id: Number(stored[after - 1]!.id), kind: 1, horizon: 0, issuedAt: 0 };
    const request: ChangeRequest = { scope: { stationIds: [op.stationId], operator: null }, ownerId: op.userId, filtered: false, cursor, perPage };
    const { page, outlook } = changePageStatements(request, bounds);
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await bindForCopy(client, page);
      return await pageOutlook(client, request, outlook);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  };
  const at = (index: number) => ({ txid: stored[index - 1]!.txid, id: Number(stored[index - 1]!.id), kind: 1 });

  t.same(await outlookOf(1000, 0), { end: null, small: false }, `${count} changes ahead: not small, no next page`);
  t.same(await outlookOf(1000, 1), { end: null, small: true }, `${ROWS_PAGE_MAX} changes ahead: small`);
  t.same(await outlookOf(1000, count), { end: null, small: true }, 'up to date: small, no next page');
  t.same(await outlookOf(ROWS_PAGE_MAX, 0), { end: at(ROWS_PAGE_MAX), small: true }, 'a full page of ROWS_PAGE_MAX with more: small, ends at its last change');
  t.same(await outlookOf(ROWS_PAGE_MAX + 1, 0), { end: null, small: false }, 'exactly perPage changes: no next page');
  t.same(await outlookOf(40, 30), { end: at(70), small: true }, 'from a cursor: ends perPage changes after it');
  t.same(await outlookOf(40, count - 40), { end: null, small: true }, 'the last perPage changes: no next page');
});
