-- Lean storage (issue 51; docs/storage.md names what stays and what it serves). qso carried 22
-- indexes and 14 tables of counts: every writer paid for them (a one-row INSERT 0.309 ms of the
-- database with the counting, 0.108 without) to win 1-2 ms on million-QSO logs. What stays:
-- 10 indexes on qso and 4 tables of counts (qso_counts, qso_id_counts, qso_month_counts,
-- qso_dxcc_counts), whose counts this migration does not touch, so every total stays exact.
-- Writers wait while it runs (the lock), readers do not.
LOCK TABLE qso IN SHARE ROW EXCLUSIVE MODE;

-- The counts go. The counting trigger is regenerated for the four that stay by the migration
-- run, in this transaction (lib/db/countTables.ts).
DROP TABLE IF EXISTS qso_month_bucket_counts, qso_month_band_counts, qso_month_mode_counts, qso_month_qsl_counts,
  qso_confirmation_month_counts, qso_id_band_counts, qso_id_mode_counts, qso_id_qsl_counts, qso_id_month_counts,
  qso_id_band_mode_counts;

-- The received months were the dropped confirmation months' key: a key that holds them splits a
-- write's groups for nothing.
CREATE OR REPLACE FUNCTION qso_count_key(q qso) RETURNS qso_count_key LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ROW(q.station_id, q.operator, q.id / 4096, date_trunc('month', q.time_on), q.band, q.mode, q.submode,
             CASE WHEN q.prop_mode = 'SAT' THEN 'SAT' END,
             CASE WHEN q.qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN q.lotw_qsl_rcvd = 'Y' THEN 'Y' END,
             CASE WHEN q.eqsl_qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN q.qrzcom_qso_download_status = 'Y' THEN 'Y' END,
             CASE WHEN q.clublog_qso_download_status = 'Y' THEN 'Y' END,
             NULL, NULL, NULL, NULL, NULL)::qso_count_key
$$;

-- The time index holds the filters' columns (band, mode, submode, SAT, the received statuses): a
-- page newest first with band, mode or qsl_filter walks it and picks its ids from the index
-- alone, where nine indexes of their own (per band, mode, submode, SAT, received type) did it.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_index WHERE indexrelid = 'qso_station_time'::regclass AND indnatts > indnkeyatts) THEN
    CREATE INDEX qso_station_time_covering ON qso (station_id, time_on DESC, id DESC)
      INCLUDE (band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status);
    DROP INDEX qso_station_time;
    ALTER INDEX qso_station_time_covering RENAME TO qso_station_time;
  END IF;
END $$;

DROP INDEX IF EXISTS qso_station_band_time, qso_station_mode_time, qso_station_submode_time, qso_station_sat_time,
  qso_confirmed_qsl_time, qso_confirmed_lotw_time, qso_confirmed_eqsl_time, qso_confirmed_qrz_time, qso_confirmed_clublog_time,
  qso_station_dxcc_confirmed, qso_station_grid, qso_station_vucc;
