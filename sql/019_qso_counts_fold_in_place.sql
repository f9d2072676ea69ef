-- A compaction adds a location's appended (unfolded) rows of counts to its folded ones instead
-- of rewriting them all. Before, every round deleted all of a busy location's rows and inserted
-- their sums again: for a 1M-QSO location 36,000 rows of qso_month_bucket_counts and 14,000 in
-- the other tables, 370-460 ms of database work and as many dead rows every 5 s while anyone
-- logged (benchmarks/RESULTS.md, "Compaction in place"), growing without bound where no vacuum
-- ran. Now a round writes in proportion to what writers appended since the last one: an upsert
-- per bucket on the one folded row, found by the unique index below (NULL columns compare as
-- equal: a bucket's NULL operator or submode is a value of the key, as in the sums' GROUP BY).
--
-- First every table is folded whole, as a compaction did, so that each bucket has one folded
-- row at most; then the index.
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT * FROM (VALUES
    ('qso_counts', 'station_id, operator, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status'),
    ('qso_id_counts', 'station_id, operator, block'),
    ('qso_month_counts', 'station_id, operator, month'),
    ('qso_month_bucket_counts', 'station_id, operator, month, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status'),
    ('qso_month_band_counts', 'station_id, operator, month, band, prop_mode'),
    ('qso_month_mode_counts', 'station_id, operator, month, mode, submode'),
    ('qso_month_qsl_counts', 'station_id, operator, month, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status'),
    ('qso_confirmation_month_counts', 'station_id, operator, type, month')
  ) AS tables (name, columns) LOOP
    EXECUTE format('WITH gone AS (DELETE FROM %I RETURNING *) INSERT INTO %I (%s, n, folded) SELECT %s, sum(n), true FROM gone GROUP BY %s HAVING sum(n) <> 0',
                   t.name, t.name, t.columns, t.columns, t.columns);
    EXECUTE format('CREATE UNIQUE INDEX %I ON %I (%s) NULLS NOT DISTINCT WHERE folded', t.name || '_folded', t.name, t.columns);
  END LOOP;
END
$$;
