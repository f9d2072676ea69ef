-- An ADIF page by `page` with band, mode or qsl_filter starts from its block of ids too. Its
-- pages go by ascending id, and qso_id_counts keeps no filter columns, so such a page read every
-- matching QSO before it (format=adif&mode=CW&page=150 of a 1M log: 280 ms of the database's
-- time, benchmarks/RESULTS.md). Three tables of id-block counts, one per kind of filter, as the
-- month counts per kind (sql/018): per block of 4096 ids and band (SAT included), mode/submode,
-- the five received statuses. Same rules as every table of counts: writers append in the same
-- statement trigger (one more group of its rows per table), compaction folds in place (the
-- unique index of folded rows, sql/019).
CREATE TABLE qso_id_band_counts (
  station_id integer NOT NULL,
  operator   text,
  block      bigint NOT NULL,
  band       text,
  prop_mode  text,
  n          bigint NOT NULL,
  folded     boolean NOT NULL DEFAULT false
);
CREATE TABLE qso_id_mode_counts (
  station_id integer NOT NULL,
  operator   text,
  block      bigint NOT NULL,
  mode       text,
  submode    text,
  n          bigint NOT NULL,
  folded     boolean NOT NULL DEFAULT false
);
CREATE TABLE qso_id_qsl_counts (
  station_id                  integer NOT NULL,
  operator                    text,
  block                       bigint NOT NULL,
  qsl_rcvd                    text,
  lotw_qsl_rcvd               text,
  eqsl_qsl_rcvd               text,
  qrzcom_qso_download_status  text,
  clublog_qso_download_status text,
  n                           bigint NOT NULL,
  folded                      boolean NOT NULL DEFAULT false
);

-- What is stored, folded (as a compaction leaves it).
INSERT INTO qso_id_band_counts (station_id, operator, block, band, prop_mode, n, folded)
SELECT (k).station_id, (k).operator, (k).block, (k).band, (k).prop_mode, count(*), true
  FROM (SELECT qso_count_key(q) AS k FROM qso q) s GROUP BY 1, 2, 3, 4, 5;
INSERT INTO qso_id_mode_counts (station_id, operator, block, mode, submode, n, folded)
SELECT (k).station_id, (k).operator, (k).block, (k).mode, (k).submode, count(*), true
  FROM (SELECT qso_count_key(q) AS k FROM qso q) s GROUP BY 1, 2, 3, 4, 5;
INSERT INTO qso_id_qsl_counts (station_id, operator, block, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd,
                               qrzcom_qso_download_status, clublog_qso_download_status, n, folded)
SELECT (k).station_id, (k).operator, (k).block, (k).qsl_rcvd, (k).lotw_qsl_rcvd, (k).eqsl_qsl_rcvd,
       (k).qrzcom_qso_download_status, (k).clublog_qso_download_status, count(*), true
  FROM (SELECT qso_count_key(q) AS k FROM qso q) s GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;

CREATE INDEX qso_id_band_counts_station_block ON qso_id_band_counts (station_id, block);
CREATE INDEX qso_id_band_counts_unfolded ON qso_id_band_counts (station_id) WHERE NOT folded;
CREATE UNIQUE INDEX qso_id_band_counts_folded ON qso_id_band_counts (station_id, operator, block, band, prop_mode) NULLS NOT DISTINCT WHERE folded;
CREATE INDEX qso_id_mode_counts_station_block ON qso_id_mode_counts (station_id, block);
CREATE INDEX qso_id_mode_counts_unfolded ON qso_id_mode_counts (station_id) WHERE NOT folded;
CREATE UNIQUE INDEX qso_id_mode_counts_folded ON qso_id_mode_counts (station_id, operator, block, mode, submode) NULLS NOT DISTINCT WHERE folded;
CREATE INDEX qso_id_qsl_counts_station_block ON qso_id_qsl_counts (station_id, block);
CREATE INDEX qso_id_qsl_counts_unfolded ON qso_id_qsl_counts (station_id) WHERE NOT folded;
CREATE UNIQUE INDEX qso_id_qsl_counts_folded ON qso_id_qsl_counts (station_id, operator, block, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd,
                                                                    qrzcom_qso_download_status, clublog_qso_download_status) NULLS NOT DISTINCT WHERE folded;

-- sql/018's trigger with the three tables added.
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
