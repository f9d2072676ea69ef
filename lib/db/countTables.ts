import type pg from 'pg';

/**
 * The tables of QSO counts and the trigger that fills them, said once. Every statement that
 * writes qso appends, in its own transaction, signed counts of the rows it added, removed or
 * moved to each table (sql/009 and on); lib/qso/counts.ts sums them for totals and deep pages
 * and folds them. An INSERT's rows are grouped by each table's key in one statement
 * (insertBranchSql); an UPDATE's or DELETE's are grouped once by qso_count_key() (sql/018: a
 * QSO's location, operator, block of ids, month, bucket and received months), groups netting to
 * nothing dropped, then one statement adds the groups to every table here. Its body is generated from this list and
 * installed by the migration run (ensureCountTrigger); the body in force is in sql/schema.sql.
 */

/** A table of appended counts: its name and the columns of its key, in table order, each a field of qso_count_key. */
export interface CountTable {
  name: string;
  columns: string;
  /**
   * For a key qso_count_key() does not hold, its columns' expressions on a written row `r`: the
   * trigger groups the statement's rows by them apart. Grouping every table's deltas by a key
   * that holds a column with many values per block and bucket (a QSO's entity) would split the
   * groups of every table: an import of 1M QSOs of 520 entities took 20 % longer.
   */
  rowKey?: readonly string[];
}

/** The statuses of qsl_filter's conditions. */
const QSL_COLUMNS = 'qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status';

/** The bucket a QSO counts in: the columns of the filters the counts answer (band, mode, qsl_filter). */
const BUCKET_COLUMNS = `band, mode, submode, prop_mode, ${QSL_COLUMNS}`;

/** The kinds of filter qso_counts keeps: band (SAT included), mode (or submode), qsl_filter. */
export type BucketFilterKind = 'band' | 'mode' | 'qsl';

/**
 * Per DXCC entity, with whether card and LoTW confirmed (sql/025, the statuses as the bucket
 * keeps them): the entities worked and confirmed of the statistics' DXCC progress.
 */
export const DXCC_TABLE: CountTable = {
  name: 'qso_dxcc_counts',
  columns: 'station_id, operator, dxcc, qsl_rcvd, lotw_qsl_rcvd',
  rowKey: ['r.station_id', 'r.operator', 'r.dxcc', "CASE WHEN r.qsl_rcvd = 'Y' THEN 'Y' END", "CASE WHEN r.lotw_qsl_rcvd = 'Y' THEN 'Y' END"],
};

/**
 * Every table of counts, in the order the trigger fills them: the four that pay for themselves
 * (docs/storage.md; sql/050 dropped the other ten).
 */
export const COUNT_TABLES: readonly CountTable[] = [
  // Per bucket (sql/009): totals of band, mode, qsl_filter; the statistics' breakdowns.
  { name: 'qso_counts', columns: `station_id, operator, ${BUCKET_COLUMNS}` },
  // Per block of ids (sql/012): since_id totals, deep ADIF pages.
  { name: 'qso_id_counts', columns: 'station_id, operator, block' },
  // Per month and received statuses (sql/013, sql/057): scope totals, date totals, deep JSON
  // pages, the statistics' activity, the confirmation list's totals over QSO dates.
  { name: 'qso_month_counts', columns: `station_id, operator, month, ${QSL_COLUMNS}` },
  DXCC_TABLE,
];

/** The positions of a table's key columns, to group by. */
const keyPositions = (columns: string): string => columns.split(',').map((_, i) => i + 1).join(', ');

/**
 * Statements whose deltas are at most this many append them to each table as they are, one row
 * each, rather than grouped by the table's key (UPDATE and DELETE; an INSERT's branch is
 * insertBranchSql's): a single DELETE, which leaves one row per table either way. Grouping (an
 * aggregate per table, set up at every execution) cost such a statement more than it can save:
 * the trigger of a one-row INSERT took 0.36–0.40 ms grouped and 0.20 ungrouped
 * (benchmarks/RESULTS.md). With two deltas or more, ungrouped rows would share a table's key: a
 * PATCH of the band (the row's old key taken away, its new one added) nets to nothing in every
 * table without band, and ungrouped it wrote two rows to each for compaction to fold, for no
 * gain (0.39 ms against 0.36 grouped, within the benchmark's noise).
 */
export const UNGROUPED_MAX_DELTAS = 1;

/**
 * The trigger's INSERT for one table from the deltas `d`: each group of the table's key summed
 * (groups netting to nothing dropped), or, `ungrouped`, every delta as its own row.
 */
function insertSql({ name, columns }: CountTable, ungrouped: boolean): string {
  return `INSERT INTO ${name} (${columns}, n)
    ${ungrouped ? `SELECT ${columns}, n FROM d` : `SELECT ${columns}, sum(n) FROM d GROUP BY ${keyPositions(columns)} HAVING sum(n) <> 0`}`;
}

/** One statement appending the deltas to every table keyed by qso_count_key (`keyed`). */
function deltaInsertsSql(keyed: readonly CountTable[], ungrouped: boolean): string {
  const added = keyed.slice(0, -1).map((table) => `${table.name}_added AS (\n    ${insertSql(table, ungrouped)})`);
  return `WITH d AS (SELECT (u.key).*, u.n FROM unnest(deltas) u),
    ${added.join(',\n    ')}
    ${insertSql(keyed.at(-1)!, ungrouped)};`;
}

/** The statement's rows signed in one branch of the trigger: added +1, removed -1 (transition tables r). */
type SignedRows = (key: string) => string;
const SIGNED_ROWS: Record<'delete' | 'update', SignedRows> = {
  delete: (key) => `SELECT ${key}, -1 FROM old_rows r`,
  update: (key) => `SELECT ${key}, 1 FROM new_rows r UNION ALL SELECT ${key}, -1 FROM old_rows r`,
};

/** The INSERTs of one branch for the tables keyed on the rows themselves (rowKey). */
function rowKeyedInserts(tables: readonly CountTable[], signed: SignedRows): string {
  return tables.filter((table) => table.rowKey !== undefined).map(({ name, columns, rowKey }) => `
    INSERT INTO ${name} (${columns}, n)
    SELECT ${columns}, sum(n)
      FROM (${signed(rowKey!.join(', '))}) moved(${columns}, n)
     GROUP BY ${keyPositions(columns)} HAVING sum(n) <> 0;`).join('');
}

/**
 * One branch of the trigger: the deltas of qso_count_key's tables (the signed rows grouped by
 * key; groups that net to nothing are dropped, so an update that moves no QSO between keys, as
 * most do not, adds nothing), then the INSERTs of the tables keyed on the rows themselves.
 */
function branchSql(tables: readonly CountTable[], signed: SignedRows): string {
  return `
    deltas := ARRAY(SELECT ROW(key, sum(n))::qso_count_delta FROM (${signed('qso_count_key(r)')}) moved(key, n)
                     GROUP BY key HAVING sum(n) <> 0);${rowKeyedInserts(tables, signed)}`;
}

/**
 * The INSERT branch: every table filled by one statement straight from the rows, each grouped by
 * its own key. Every row adds one, so no group nets to nothing and no deltas are needed: one
 * statement where the other branches run two or three (measured at a load of 24: a single
 * create's INSERT 0.252 → 0.220 ms, a 25,000-row INSERT 1,608 → 1,463 ms; benchmarks/RESULTS.md).
 */
function insertBranchSql(tables: readonly CountTable[]): string {
  const rowKeyed = tables.filter((table) => table.rowKey !== undefined);
  const rowKeyColumns = (name: string, count: number) => Array.from({ length: count }, (_, i) => `${name}_${i + 1}`);
  const keys = ['(qso_count_key(r)).*', ...rowKeyed.flatMap(({ name, rowKey }) => rowKey!.map((expression, i) => `${expression} AS ${name}_${i + 1}`))];
  const inserts = tables.map(({ name, columns, rowKey }) => {
    const source = rowKey === undefined ? columns : rowKeyColumns(name, rowKey.length).join(', ');
    return `INSERT INTO ${name} (${columns}, n)
      SELECT ${source}, count(*) FROM k GROUP BY ${keyPositions(columns)}`;
  });
  const added = inserts.slice(0, -1).map((insert, i) => `${tables[i]!.name}_added AS (\n      ${insert})`);
  return `
    WITH k AS MATERIALIZED (SELECT ${keys.join(', ')} FROM new_rows r),
    ${added.join(',\n    ')}
    ${inserts.at(-1)!};
    RETURN NULL;`;
}

/**
 * The body of qso_counts_record(), the statement trigger on qso (insert, update, delete) that
 * appends to every table of counts. `ungroupedMaxDeltas` 0 groups every statement's deltas (a
 * benchmark's comparison).
 */
export function countTriggerBody(tables: readonly CountTable[] = COUNT_TABLES, ungroupedMaxDeltas = UNGROUPED_MAX_DELTAS): string {
  const keyed = tables.filter((table) => table.rowKey === undefined);
  const inserts = ungroupedMaxDeltas === 0 ? deltaInsertsSql(keyed, false) : `IF cardinality(deltas) <= ${ungroupedMaxDeltas} THEN
    ${deltaInsertsSql(keyed, true)}
  ELSE
    ${deltaInsertsSql(keyed, false)}
  END IF;`;
  return `
DECLARE
  deltas qso_count_delta[];
BEGIN
  -- A transition table exists only for the kinds of write its trigger names, hence three branches.
  IF TG_OP = 'INSERT' THEN${insertBranchSql(tables)}
  ELSIF TG_OP = 'DELETE' THEN${branchSql(tables, SIGNED_ROWS.delete)}
  ELSE${branchSql(tables, SIGNED_ROWS.update)}
  END IF;
  IF cardinality(deltas) = 0 THEN
    RETURN NULL;
  END IF;
  ${inserts}
  RETURN NULL;
END;
`;
}

/**
 * Installs the generated qso_counts_record() where the database holds another body, in the
 * caller's transaction, once every table of COUNT_TABLES exists (from sql/025 on; before, the
 * migrations' own bodies count). The migration run calls it in the transaction of each migration
 * it applies, so no write commits between one pending migration and the next under a body that
 * counts into tables the next one drops (sql/050). Call in a transaction. Returns whether it
 * replaced the function.
 */
export async function ensureCountTrigger(client: Pick<pg.PoolClient, 'query'>): Promise<boolean> {
  const tables = await countTablesAsBuilt(client);
  if (tables === null) return false;
  const { rows: [state] } = await client.query<{ body: string | null }>("SELECT (SELECT prosrc FROM pg_proc WHERE proname = 'qso_counts_record') AS body");
  const body = countTriggerBody(tables);
  if (state!.body === body) return false;
  // No write commits under the old body while the new one takes over (a migration that fills a
  // new table takes this lock before its backfill).
  await client.query('LOCK TABLE qso IN SHARE MODE');
  await client.query(countTriggerFunctionSql(body));
  return true;
}

/**
 * COUNT_TABLES as the database holds them, each with the columns of its key the table has (a
 * database migrated to a version before sql/057 has qso_month_counts without the statuses, and is
 * counted into as it is); null while one of them is missing.
 */
export async function countTablesAsBuilt(client: Pick<pg.PoolClient, 'query'>): Promise<CountTable[] | null> {
  const { rows } = await client.query<{ name: string; columns: string[] }>(
    `SELECT c.relname::text AS name, array_agg(a.attname::text) AS columns
       FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE c.oid = ANY(array(SELECT to_regclass(t) FROM unnest($1::text[]) t)) GROUP BY c.relname`,
    [COUNT_TABLES.map(({ name }) => name)],
  );
  if (rows.length < COUNT_TABLES.length) return null;
  return COUNT_TABLES.map((table) => {
    const has = new Set(rows.find(({ name }) => name === table.name)!.columns);
    return { ...table, columns: table.columns.split(', ').filter((column) => has.has(column)).join(', ') };
  });
}

/** The statement that makes `body` the counting trigger's function. */
export function countTriggerFunctionSql(body: string): string {
  return `CREATE OR REPLACE FUNCTION qso_counts_record() RETURNS trigger LANGUAGE plpgsql AS $body$${body}$body$`;
}
