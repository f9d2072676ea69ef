import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createOperator } from '../helpers/fixtures.js';
import { insertQsos, seedQsos } from '../helpers/qsoRows.js';
import { ROWS_PAGE_MAX } from '../../lib/db/pageRows.js';

/**
 * The feed reads a small page as rows of a named statement and writes them as the COPY text of
 * the same statement (CopyTextOfRows), a larger one by COPY: both must give the same bytes, for
 * every kind of value a QSO holds (COPY's escapes included), for edits and for deletions.
 */

/** The items of a page's `data`, as the raw text the server wrote. */
function itemsText(body: string): string {
  const start = body.indexOf('{"data":[') + '{"data":['.length;
  const end = body.lastIndexOf('],"meta":');
  if (start < '{"data":['.length || end < start) throw new Error(`not a feed page: ${body.slice(0, 200)}`);
  return body.slice(start, end);
}

/** Follows the feed with `perPage` to its end: the pages' items joined as one `data` would hold them, and the number of pages. */
async function followRaw(server: TestServer, token: string, perPage: number, extra = ''): Promise<{ items: string; pages: number }> {
  const parts: string[] = [];
  let cursor: string | null = null;
  for (let pages = 1; ; pages++) {
    const res = await server.request(`/api/v2/qso/changes?per_page=${perPage}${extra}${cursor === null ? '' : `&cursor=${cursor}`}`, { token });
    if (res.status !== 200) throw new Error(`feed answered ${res.status}: ${res.text}`);
    const items = itemsText(res.text);
    if (items !== '') parts.push(items);
    cursor = res.body.meta.cursor;
    if (!res.body.meta.has_more) return { items: parts.join(','), pages };
  }
}

t.test('a feed page read as rows is byte for byte the page read by COPY', async (t) => {
  const server = await startTestServer(t);
  const db = server.db.pool;
  const op = await createOperator(db, { callsign: 'DL1ROW' });
  // Every escape COPY writes, quotes, non-ASCII text, numbers, dates, NULLs.
  const awkward = 'tab\there, new\nline, cr\r, back\\slash, bs\b ff\f vt\v, "quoted", Grüße 日本 📻';
  const ids = await insertQsos(db, [
    { station_id: op.stationId, call: 'DL1AWK', time_on: '2024-05-01 10:00:00', name: awkward, comment: '\\N', qth: '', freq: 14074000, dxcc: 230, lotw_qslrdate: '2024-06-01' },
    { station_id: op.stationId, call: 'DL2AWK', time_on: '2024-05-01 10:01:00', notes: awkward, extra: JSON.stringify({ app_x: awkward }) },
  ]);
  await seedQsos(db, [op.stationId],
    `INSERT INTO qso (station_id, call, time_on, band, mode, name)
     SELECT $1, 'W' || n || 'ROW', timestamp '2024-01-01' + n * interval '1 minute', '20m', 'CW', 'Op ' || n
       FROM generate_series(1, $2::int) n`, [op.stationId, ROWS_PAGE_MAX + 20]);
  // An edit and a deletion in later transactions: an upsert in its new state and a tombstone.
  await seedQsos(db, [op.stationId], `UPDATE qso SET comment = $2 WHERE id = $1`, [ids[0], `edited ${awkward}`]);
  await seedQsos(db, [op.stationId], `DELETE FROM qso WHERE id = $1`, [ids[1]]);

  const byCopy = await followRaw(server, op.token, 1000);
  t.equal(byCopy.pages, 1, 'one page of more changes than ROWS_PAGE_MAX: read by COPY');
  const byRows = await followRaw(server, op.token, 25);
  t.ok(byRows.pages > 4, `pages of 25: read as rows (${byRows.pages} pages)`);
  t.equal(byRows.items, byCopy.items, 'the same bytes');
  const changes = JSON.parse(`[${byCopy.items}]`) as Array<{ change: string; id: number; qso: Record<string, unknown> | null }>;
  t.equal(changes.length, 2 + ROWS_PAGE_MAX + 20, 'every QSO once (the deleted one as its tombstone)');
  t.same(changes.at(-1), { change: 'delete', id: ids[1], station_id: op.stationId, qso: null }, 'the deletion last');
  const edited = changes.find((change) => change.id === ids[0]);
  t.equal(edited?.qso?.name, awkward, 'the awkward value read back as stored');
  t.equal(edited?.qso?.comment, `edited ${awkward}`, 'in its edited state');

  const leanByCopy = await followRaw(server, op.token, 1000, '&omit_empty=true');
  const leanByRows = await followRaw(server, op.token, 25, '&omit_empty=true');
  t.equal(leanByRows.items, leanByCopy.items, 'omit_empty: the same bytes');
  t.not(leanByCopy.items, byCopy.items, 'omit_empty writes other objects');
});
