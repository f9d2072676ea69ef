-- Exact list totals without counting a location's QSOs on every request (docs/api-v2/qso.md,
-- "Totals"). Every statement that writes qso appends, in its own transaction, how many QSOs it
-- added or removed per bucket of the columns the list filters by (scope, band, mode, the five
-- confirmation statuses). Rows are only ever appended (no row another writer could hold
-- locked), so a single create never waits for an import's counts; a reader sums the buckets its
-- filters select within its snapshot, which sees exactly the committed QSOs. Compaction
-- (lib/qso/counts.ts) folds a location's rows into one per bucket, also in one transaction.
CREATE TABLE qso_counts (
  station_id                  integer NOT NULL,
  operator                    text,
  band                        text,
  mode                        text,
  submode                     text,
  -- 'SAT' or NULL: the band filter's SAT case.
  prop_mode                   text,
  -- 'Y' or NULL each: the qsl_filter's conditions.
  qsl_rcvd                    text,
  lotw_qsl_rcvd               text,
  eqsl_qsl_rcvd               text,
  qrzcom_qso_download_status  text,
  clublog_qso_download_status text,
  n                           bigint NOT NULL,
  -- true for the one row per bucket a compaction leaves; writers append unfolded rows.
  folded                      boolean NOT NULL DEFAULT false
);
CREATE INDEX qso_counts_station ON qso_counts (station_id);
-- The compaction looks for locations with many unfolded rows without reading the folded ones.
CREATE INDEX qso_counts_unfolded ON qso_counts (station_id) WHERE NOT folded;

CREATE FUNCTION qso_counts_bucket_sql(p_rows text, p_sign text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($f$SELECT station_id, operator, band, mode, submode,
      CASE WHEN prop_mode = 'SAT' THEN 'SAT' END,
      CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END,
      CASE WHEN eqsl_qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN qrzcom_qso_download_status = 'Y' THEN 'Y' END,
      CASE WHEN clublog_qso_download_status = 'Y' THEN 'Y' END, %s AS n FROM %I$f$, p_sign, p_rows)
$$;

CREATE FUNCTION qso_counts_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parts text;
BEGIN
  parts := CASE TG_OP
    WHEN 'INSERT' THEN qso_counts_bucket_sql('new_rows', '1')
    WHEN 'DELETE' THEN qso_counts_bucket_sql('old_rows', '-1')
    ELSE qso_counts_bucket_sql('new_rows', '1') || ' UNION ALL ' || qso_counts_bucket_sql('old_rows', '-1')
  END;
  -- An update that moves no QSO between buckets (most do not) adds nothing.
  EXECUTE 'INSERT INTO qso_counts (station_id, operator, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
             eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, n)
           SELECT station_id, operator, band, mode, submode, p, a, b, c, d, e, sum(n)
           FROM (' || parts || ') AS r (station_id, operator, band, mode, submode, p, a, b, c, d, e, n)
           GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 HAVING sum(n) <> 0';
  RETURN NULL;
END;
$$;

CREATE TRIGGER qso_counts_insert AFTER INSERT ON qso REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION qso_counts_record();
CREATE TRIGGER qso_counts_delete AFTER DELETE ON qso REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION qso_counts_record();
CREATE TRIGGER qso_counts_update AFTER UPDATE ON qso REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION qso_counts_record();

INSERT INTO qso_counts
SELECT station_id, operator, band, mode, submode,
  CASE WHEN prop_mode = 'SAT' THEN 'SAT' END,
  CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END,
  CASE WHEN eqsl_qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN qrzcom_qso_download_status = 'Y' THEN 'Y' END,
  CASE WHEN clublog_qso_download_status = 'Y' THEN 'Y' END, count(*), true
FROM qso GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;
