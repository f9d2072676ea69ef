-- The counting trigger (sql/009, 012, 013) with static statements instead of EXECUTE of SQL
-- text built per call: PL/pgSQL plans a static statement once per session and reuses it, where
-- every EXECUTE is parsed and planned again. For an import's statement of 25,000 rows that was
-- noise; for a single create it was most of the statement's time (0.3–2.8 ms for the trigger
-- against 0.04 ms for the INSERT itself; 0.04–0.06 ms now). Same buckets and the same rows
-- appended as before. qso_counts_bucket_sql (sql/009) stays: benchmarks/import.ts --index-cost
-- puts sql/009's trigger back to measure it.
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
  END IF;
  RETURN NULL;
END;
$$;
