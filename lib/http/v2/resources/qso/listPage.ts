import { Readable, type Transform } from 'node:stream';
import type pg from 'pg';
import type { RequestContext } from '../../resource.js';
import { bindForCopy } from '../../../../db/settingParams.js';
import { withItsCut, type ListQuery, type ParsedList, type Sql } from '../../../../qso/list/query.js';
import { countTotalBindingPage } from '../../../../qso/list/total.js';
import { answerFromSnapshot, beginSnapshot, endSnapshot } from './snapshot.js';

/** How a list's page is read and answered: its query, how its rows are read, and the envelope they become. */
export interface ListPage {
  /** The page's query, built in the snapshot (a deep page asks where it starts). */
  query(client: pg.PoolClient): Promise<Sql>;
  /** The page's output, its statement's values bound (bindForCopy): a COPY, or a small page's rows. */
  read(client: pg.PoolClient, boundText: string): Promise<Readable>;
  /** The response body the page's output is piped into, knowing the list's total. */
  envelope(total: number): Transform;
}

/**
 * Answers a list (JSON or ADIF) from one read-only snapshot on a bulk connection, taken after the
 * list's cut was read on that connection (ParsedList): its total, with the page's values bound in
 * the same round trip, then the page, a COPY whose output streams through the envelope into the
 * response (docs/architecture.md). No COPY for a page past the total. The snapshot ends when the page is drained, or is discarded with its connection
 * when the client goes away (or the database fails) mid-page; a query that fails before the
 * first rows still gets the error envelope instead of a cut-off body.
 */
export async function answerListPage(
  { ctx, services }: RequestContext, parsed: ParsedList, pageOf: (list: ListQuery) => ListPage,
): Promise<undefined> {
  const client = await services.pageDb.connect();
  try {
    const list = await withItsCut(client, parsed);
    const page = pageOf(list);
    await beginSnapshot(client);
    const query = await page.query(client);
    const { total, copyText } = await countTotalBindingPage(client, list, query);
    const rows = total > list.pagination.offset
      ? await page.read(client, copyText ?? (await bindForCopy(client, query)).copyText)
      : Readable.from([]);
    return answerFromSnapshot(ctx, client, rows, page.envelope(total), services.readAhead);
  } catch (error) {
    endSnapshot(client, error as Error);
    throw error;
  }
}
