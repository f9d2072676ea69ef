-- The DXCC progress of `statistic?profile=qso` counted the distinct entities of every QSO of the
-- scope: worked, confirmed by card, by LoTW (420 ms at 1M QSOs, benchmarks/RESULTS.md, "Lookups,
-- log checks and statistics"). Counts per entity and whether card and LoTW confirmed: a few
-- rows per entity worked, summed instead. Writers append to it in the same statement trigger,
-- grouping their rows by entity apart from qso_count_key() (whose groups every other table
-- sums: an entity in that key split them, an import of 1M QSOs took 20 % longer);
-- compaction folds in place (the unique index of folded rows, sql/019), as for every table.
-- Writers wait until this migration commits (and it waits for those in flight): a QSO committed
-- after the backfill's snapshot, by a writer whose trigger does not know the table yet (another
-- process of the older version), would be counted nowhere (as in sql/023).
LOCK TABLE qso IN SHARE MODE;

CREATE TABLE qso_dxcc_counts (
  station_id    integer NOT NULL,
  operator      text,
  dxcc          integer,
  qsl_rcvd      text,
  lotw_qsl_rcvd text,
  n             bigint NOT NULL,
  folded        boolean NOT NULL DEFAULT false
);

-- What is stored, folded (as a compaction leaves it); the statuses 'Y' or NULL, as the buckets keep them.
INSERT INTO qso_dxcc_counts (station_id, operator, dxcc, qsl_rcvd, lotw_qsl_rcvd, n, folded)
SELECT station_id, operator, dxcc, CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END, count(*), true
  FROM qso GROUP BY 1, 2, 3, 4, 5;

CREATE INDEX qso_dxcc_counts_station ON qso_dxcc_counts (station_id, dxcc);
CREATE INDEX qso_dxcc_counts_unfolded ON qso_dxcc_counts (station_id) WHERE NOT folded;
CREATE UNIQUE INDEX qso_dxcc_counts_folded ON qso_dxcc_counts (station_id, operator, dxcc, qsl_rcvd, lotw_qsl_rcvd) NULLS NOT DISTINCT WHERE folded;

-- The counting trigger that fills the table is generated from lib/db/countTables.ts and installed
-- in this migration's transaction by the migration run (ensureCountTrigger).
