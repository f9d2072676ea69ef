-- An ADIF page of a range of QSO dates goes by ascending id, and neither the month counts (no ids)
-- nor the id-block counts (no months) say where the range's QSOs lie among the ids. Such a page
-- read the range's QSOs from qso_station_time and sorted them by id, or walked the ids from the
-- start past every QSO before the range (a year of a 2M log, page 1: 50 ms, benchmarks/RESULTS.md).
-- Counts per block of ids and month of time_on: the blocks of ids holding a range's QSOs, and how
-- many, are then summed as for a kind of filter (sql/022), the partial months at the range's ends
-- counted from qso. Same rules as every table of counts: writers append in the same statement
-- trigger (one more group of the rows it already grouped by qso_count_key), compaction folds in
-- place (the unique index of folded rows, sql/019). A log stored in time order has one or two
-- months per block.
-- Writers wait until this migration commits (and it waits for those in flight): a QSO committed
-- after the backfill's snapshot, by a writer whose trigger does not know the table yet (another
-- process of the older version), would be counted nowhere.
LOCK TABLE qso IN SHARE MODE;

CREATE TABLE qso_id_month_counts (
  station_id integer NOT NULL,
  operator   text,
  block      bigint NOT NULL,
  month      timestamp NOT NULL,
  n          bigint NOT NULL,
  folded     boolean NOT NULL DEFAULT false
);

-- What is stored, folded (as a compaction leaves it); block and month as qso_count_key() gives them.
INSERT INTO qso_id_month_counts (station_id, operator, block, month, n, folded)
SELECT station_id, operator, id / 4096, date_trunc('month', time_on), count(*), true FROM qso GROUP BY 1, 2, 3, 4;

CREATE INDEX qso_id_month_counts_station_month ON qso_id_month_counts (station_id, month);
CREATE INDEX qso_id_month_counts_unfolded ON qso_id_month_counts (station_id) WHERE NOT folded;
CREATE UNIQUE INDEX qso_id_month_counts_folded ON qso_id_month_counts (station_id, operator, block, month) NULLS NOT DISTINCT WHERE folded;

-- The counting trigger that fills the table is generated from lib/db/countTables.ts and installed
-- in this migration's transaction by the migration run (ensureCountTrigger), instead of restating
-- qso_counts_record() here as sql/018 and sql/022 did.
