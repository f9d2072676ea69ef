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

-- sql/022's trigger with the table added.
CREATE OR REPLACE FUNCTION qso_counts_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deltas qso_count_delta[];
BEGIN
  -- A transition table exists only for the kinds of write its trigger names, hence three branches.
  IF TG_OP = 'INSERT' THEN
    deltas := ARRAY(SELECT ROW(qso_count_key(r), count(*))::qso_count_delta FROM new_rows r GROUP BY qso_count_key(r));
  ELSIF TG_OP = 'DELETE' THEN
    deltas := ARRAY(SELECT ROW(qso_count_key(r), -count(*))::qso_count_delta FROM old_rows r GROUP BY qso_count_key(r));
  ELSE
    -- An update that moves no QSO between keys (most do not) adds nothing.
    deltas := ARRAY(SELECT ROW(key, sum(n))::qso_count_delta
                      FROM (SELECT qso_count_key(r) AS key, 1 AS n FROM new_rows r
                            UNION ALL SELECT qso_count_key(r), -1 FROM old_rows r) moved
                     GROUP BY key HAVING sum(n) <> 0);
  END IF;
  IF cardinality(deltas) = 0 THEN
    RETURN NULL;
  END IF;
  WITH d AS (SELECT (u.key).*, u.n FROM unnest(deltas) u),
  buckets AS (
    INSERT INTO qso_counts (station_id, operator, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
                            eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, n)
    SELECT station_id, operator, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
           eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, sum(n)
      FROM d GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 HAVING sum(n) <> 0),
  blocks AS (
    INSERT INTO qso_id_counts (station_id, operator, block, n)
    SELECT station_id, operator, block, sum(n) FROM d GROUP BY 1, 2, 3 HAVING sum(n) <> 0),
  block_bands AS (
    INSERT INTO qso_id_band_counts (station_id, operator, block, band, prop_mode, n)
    SELECT station_id, operator, block, band, prop_mode, sum(n) FROM d GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0),
  block_modes AS (
    INSERT INTO qso_id_mode_counts (station_id, operator, block, mode, submode, n)
    SELECT station_id, operator, block, mode, submode, sum(n) FROM d GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0),
  block_months AS (
    INSERT INTO qso_id_month_counts (station_id, operator, block, month, n)
    SELECT station_id, operator, block, month, sum(n) FROM d GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0),
  block_qsls AS (
    INSERT INTO qso_id_qsl_counts (station_id, operator, block, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd,
                                   qrzcom_qso_download_status, clublog_qso_download_status, n)
    SELECT station_id, operator, block, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd, qrzcom_qso_download_status,
           clublog_qso_download_status, sum(n)
      FROM d GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 HAVING sum(n) <> 0),
  months AS (
    INSERT INTO qso_month_counts (station_id, operator, month, n)
    SELECT station_id, operator, month, sum(n) FROM d GROUP BY 1, 2, 3 HAVING sum(n) <> 0),
  month_bands AS (
    INSERT INTO qso_month_band_counts (station_id, operator, month, band, prop_mode, n)
    SELECT station_id, operator, month, band, prop_mode, sum(n) FROM d GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0),
  month_modes AS (
    INSERT INTO qso_month_mode_counts (station_id, operator, month, mode, submode, n)
    SELECT station_id, operator, month, mode, submode, sum(n) FROM d GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0),
  confirmation_months AS (
    INSERT INTO qso_confirmation_month_counts (station_id, operator, type, month, n)
    SELECT station_id, operator, t.type, t.month, sum(n)
      FROM d CROSS JOIN LATERAL (VALUES ('lotw', lotw_month), ('eqsl', eqsl_month), ('qsl', qsl_month),
                                        ('qrz', qrz_month), ('clublog', clublog_month)) t(type, month)
     WHERE t.month IS NOT NULL GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0),
  month_qsls AS (
    INSERT INTO qso_month_qsl_counts (station_id, operator, month, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd,
                                      qrzcom_qso_download_status, clublog_qso_download_status, n)
    SELECT station_id, operator, month, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd, qrzcom_qso_download_status,
           clublog_qso_download_status, sum(n)
      FROM d GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 HAVING sum(n) <> 0)
  INSERT INTO qso_month_bucket_counts (station_id, operator, month, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
                                       eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, n)
  SELECT station_id, operator, month, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
         eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, sum(n)
    FROM d GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 HAVING sum(n) <> 0;
  RETURN NULL;
END;
$$;
