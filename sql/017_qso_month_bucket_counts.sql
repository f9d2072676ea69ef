-- Deep pages of a filtered list (band, mode, qsl_filter) start from their month too: a second
-- table of month counts, kept per qso_counts bucket (band, mode, submode, SAT, the five received
-- statuses), so a deep page with those filters sums the months of its buckets and skips at most
-- one month of its own QSOs instead of every matching QSO before it. qso_month_counts stays as it
-- is for unfiltered pages and date totals: summing a month's many bucket rows there made those
-- three times slower (benchmarks/RESULTS.md). Same rules as the other counts: writers append in
-- the same statement trigger (an update that moves a QSO between buckets, a confirmation or a
-- new band, moves it here too), compaction folds.
CREATE TABLE qso_month_bucket_counts (
  station_id                  integer NOT NULL,
  operator                    text,
  month                       timestamp NOT NULL,
  band                        text,
  mode                        text,
  submode                     text,
  prop_mode                   text,
  qsl_rcvd                    text,
  lotw_qsl_rcvd               text,
  eqsl_qsl_rcvd               text,
  qrzcom_qso_download_status  text,
  clublog_qso_download_status text,
  n                           bigint NOT NULL,
  folded                      boolean NOT NULL DEFAULT false
);
CREATE INDEX qso_month_bucket_counts_station_month ON qso_month_bucket_counts (station_id, month);
CREATE INDEX qso_month_bucket_counts_unfolded ON qso_month_bucket_counts (station_id) WHERE NOT folded;

INSERT INTO qso_month_bucket_counts (station_id, operator, month, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
                                     eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, n, folded)
SELECT station_id, operator, date_trunc('month', time_on), band, mode, submode, CASE WHEN prop_mode = 'SAT' THEN 'SAT' END,
       CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END,
       CASE WHEN eqsl_qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN qrzcom_qso_download_status = 'Y' THEN 'Y' END,
       CASE WHEN clublog_qso_download_status = 'Y' THEN 'Y' END, count(*), true
  FROM qso GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12;

-- sql/015's trigger with the month counts per bucket added (static statements, as there).
CREATE OR REPLACE FUNCTION qso_counts_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO qso_counts (station_id, operator, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
                            eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, n)
    SELECT station_id, operator, band, mode, submode, CASE WHEN prop_mode = 'SAT' THEN 'SAT' END,
           CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END,
           CASE WHEN eqsl_qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN qrzcom_qso_download_status = 'Y' THEN 'Y' END,
           CASE WHEN clublog_qso_download_status = 'Y' THEN 'Y' END, count(*)
      FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;
    INSERT INTO qso_id_counts (station_id, operator, block, n)
    SELECT station_id, operator, id / 4096, count(*) FROM new_rows GROUP BY 1, 2, 3;
    INSERT INTO qso_month_counts (station_id, operator, month, n)
    SELECT station_id, operator, date_trunc('month', time_on), count(*) FROM new_rows GROUP BY 1, 2, 3;
    INSERT INTO qso_month_bucket_counts (station_id, operator, month, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
                                  eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, n)
    SELECT station_id, operator, date_trunc('month', time_on), band, mode, submode, CASE WHEN prop_mode = 'SAT' THEN 'SAT' END,
           CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END,
           CASE WHEN eqsl_qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN qrzcom_qso_download_status = 'Y' THEN 'Y' END,
           CASE WHEN clublog_qso_download_status = 'Y' THEN 'Y' END, count(*)
      FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO qso_counts (station_id, operator, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
                            eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, n)
    SELECT station_id, operator, band, mode, submode, CASE WHEN prop_mode = 'SAT' THEN 'SAT' END,
           CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END,
           CASE WHEN eqsl_qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN qrzcom_qso_download_status = 'Y' THEN 'Y' END,
           CASE WHEN clublog_qso_download_status = 'Y' THEN 'Y' END, -count(*)
      FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;
    INSERT INTO qso_id_counts (station_id, operator, block, n)
    SELECT station_id, operator, id / 4096, -count(*) FROM old_rows GROUP BY 1, 2, 3;
    INSERT INTO qso_month_counts (station_id, operator, month, n)
    SELECT station_id, operator, date_trunc('month', time_on), -count(*) FROM old_rows GROUP BY 1, 2, 3;
    INSERT INTO qso_month_bucket_counts (station_id, operator, month, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
                                  eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, n)
    SELECT station_id, operator, date_trunc('month', time_on), band, mode, submode, CASE WHEN prop_mode = 'SAT' THEN 'SAT' END,
           CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END,
           CASE WHEN eqsl_qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN qrzcom_qso_download_status = 'Y' THEN 'Y' END,
           CASE WHEN clublog_qso_download_status = 'Y' THEN 'Y' END, -count(*)
      FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12;
  ELSE
    -- An update that moves no QSO between buckets (most do not) adds nothing.
    INSERT INTO qso_counts (station_id, operator, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
                            eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, n)
    SELECT station_id, operator, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
           eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, sum(n)
      FROM (SELECT station_id, operator, band, mode, submode, CASE WHEN prop_mode = 'SAT' THEN 'SAT' END AS prop_mode,
                   CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END AS qsl_rcvd, CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END AS lotw_qsl_rcvd,
                   CASE WHEN eqsl_qsl_rcvd = 'Y' THEN 'Y' END AS eqsl_qsl_rcvd,
                   CASE WHEN qrzcom_qso_download_status = 'Y' THEN 'Y' END AS qrzcom_qso_download_status,
                   CASE WHEN clublog_qso_download_status = 'Y' THEN 'Y' END AS clublog_qso_download_status, s.n
              FROM (SELECT *, 1 AS n FROM new_rows UNION ALL SELECT *, -1 AS n FROM old_rows) s) r
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 HAVING sum(n) <> 0;
    INSERT INTO qso_id_counts (station_id, operator, block, n)
    SELECT station_id, operator, id / 4096, sum(n)
      FROM (SELECT station_id, operator, id, 1 AS n FROM new_rows UNION ALL SELECT station_id, operator, id, -1 FROM old_rows) r
     GROUP BY 1, 2, 3 HAVING sum(n) <> 0;
    INSERT INTO qso_month_counts (station_id, operator, month, n)
    SELECT station_id, operator, date_trunc('month', time_on), sum(n)
      FROM (SELECT station_id, operator, time_on, 1 AS n FROM new_rows UNION ALL SELECT station_id, operator, time_on, -1 FROM old_rows) r
     GROUP BY 1, 2, 3 HAVING sum(n) <> 0;
    INSERT INTO qso_month_bucket_counts (station_id, operator, month, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
                                  eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, n)
    SELECT station_id, operator, month, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
           eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, sum(n)
      FROM (SELECT station_id, operator, date_trunc('month', time_on) AS month, band, mode, submode,
                   CASE WHEN prop_mode = 'SAT' THEN 'SAT' END AS prop_mode,
                   CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END AS qsl_rcvd, CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END AS lotw_qsl_rcvd,
                   CASE WHEN eqsl_qsl_rcvd = 'Y' THEN 'Y' END AS eqsl_qsl_rcvd,
                   CASE WHEN qrzcom_qso_download_status = 'Y' THEN 'Y' END AS qrzcom_qso_download_status,
                   CASE WHEN clublog_qso_download_status = 'Y' THEN 'Y' END AS clublog_qso_download_status, s.n
              FROM (SELECT *, 1 AS n FROM new_rows UNION ALL SELECT *, -1 AS n FROM old_rows) s) r
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 HAVING sum(n) <> 0;
  END IF;
  RETURN NULL;
END;
$$;
