-- An ADIF page with band and mode together (20m CW) had no table of counts to start from, and
-- no index serves both: every page walked the ids from the start (page 15 of a 2M log: 109 ms,
-- benchmarks/RESULTS.md). Counts per block of ids, band and mode, as the kind tables of sql/022
-- keep one of them: the page reads the window of blocks that holds its matches, and a total with
-- since_id sums them. Same rules as every table of counts: writers append in the same statement
-- trigger (its key holds block, band and mode already), compaction folds in place (the unique
-- index of folded rows, sql/019). Writers wait until this migration commits (as in sql/023).
LOCK TABLE qso IN SHARE MODE;

CREATE TABLE qso_id_band_mode_counts (
  station_id integer NOT NULL,
  operator   text,
  block      bigint NOT NULL,
  band       text,
  prop_mode  text,
  mode       text,
  submode    text,
  n          bigint NOT NULL,
  folded     boolean NOT NULL DEFAULT false
);

-- What is stored, folded (as a compaction leaves it); block and prop_mode as qso_count_key() gives them.
INSERT INTO qso_id_band_mode_counts (station_id, operator, block, band, prop_mode, mode, submode, n, folded)
SELECT station_id, operator, id / 4096, band, CASE WHEN prop_mode = 'SAT' THEN 'SAT' END, mode, submode, count(*), true
  FROM qso GROUP BY 1, 2, 3, 4, 5, 6, 7;

-- A page's seek reads its band's rows of the scope (a row per block and mode of the band).
CREATE INDEX qso_id_band_mode_counts_station_band ON qso_id_band_mode_counts (station_id, band, block);
CREATE INDEX qso_id_band_mode_counts_unfolded ON qso_id_band_mode_counts (station_id) WHERE NOT folded;
CREATE UNIQUE INDEX qso_id_band_mode_counts_folded ON qso_id_band_mode_counts (station_id, operator, block, band, prop_mode, mode, submode)
  NULLS NOT DISTINCT WHERE folded;

-- The counting trigger that fills the table is generated from lib/db/countTables.ts and installed
-- in this migration's transaction by the migration run (ensureCountTrigger).
