-- Deep pages of the time-ordered list without skipping every QSO before them (docs/api-v2/qso.md,
-- "Deep pages"). The list is paged by offset (SPEC) in time_on DESC, id DESC order; OFFSET
-- 500,000 read half a million index entries. Writers now also append, in the same statement
-- trigger as qso_counts and qso_id_counts, how many QSOs they added or removed per calendar month
-- of time_on (station_id, operator, month). A deep page sums the months from the newest down in
-- its snapshot, finds the month its offset falls into, and reads from that month's end with the
-- remainder as its offset: it skips at most one month's QSOs. Same rules as qso_counts.
CREATE TABLE qso_month_counts (
  station_id integer NOT NULL,
  operator   text,
  month      timestamp NOT NULL,
  n          bigint NOT NULL,
  folded     boolean NOT NULL DEFAULT false
);
CREATE INDEX qso_month_counts_station_month ON qso_month_counts (station_id, month);
CREATE INDEX qso_month_counts_unfolded ON qso_month_counts (station_id) WHERE NOT folded;

-- One statement per table of counts over the transition tables (visible only to statements of
-- the trigger function itself): `keys` are a bucket's expressions over a QSO row, `columns`
-- their columns in the table. An update that moves no QSO between buckets (most do not) adds
-- nothing; ids never change, so only moves and operator changes add to qso_id_counts.
CREATE OR REPLACE FUNCTION qso_counts_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  target record;
  rows_sql text;
BEGIN
  FOR target IN
    SELECT * FROM (VALUES
      ('qso_counts',
       'station_id, operator, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status',
       $k$station_id, operator, band, mode, submode, CASE WHEN prop_mode = 'SAT' THEN 'SAT' END,
          CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END,
          CASE WHEN eqsl_qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN qrzcom_qso_download_status = 'Y' THEN 'Y' END,
          CASE WHEN clublog_qso_download_status = 'Y' THEN 'Y' END$k$),
      ('qso_id_counts', 'station_id, operator, block', 'station_id, operator, id / 4096'),
      ('qso_month_counts', 'station_id, operator, month', $k$station_id, operator, date_trunc('month', time_on)$k$)
    ) AS t (name, columns, keys)
  LOOP
    rows_sql := CASE TG_OP
      WHEN 'INSERT' THEN format('SELECT %s, 1 FROM new_rows', target.keys)
      WHEN 'DELETE' THEN format('SELECT %s, -1 FROM old_rows', target.keys)
      ELSE format('SELECT %s, 1 FROM new_rows UNION ALL SELECT %s, -1 FROM old_rows', target.keys, target.keys)
    END;
    EXECUTE format('INSERT INTO %I (%s, n) SELECT %s, sum(n) FROM (%s) AS r (%s, n) GROUP BY %s HAVING sum(n) <> 0',
                   target.name, target.columns, target.columns, rows_sql, target.columns, target.columns);
  END LOOP;
  RETURN NULL;
END;
$$;

INSERT INTO qso_month_counts (station_id, operator, month, n, folded)
SELECT station_id, operator, date_trunc('month', time_on), count(*), true FROM qso GROUP BY 1, 2, 3;
