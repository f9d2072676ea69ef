-- What a QSO counts as, said once. The counting trigger (sql/015, sql/017) spelled the bucket out
-- for each of its four tables and each kind of write: twelve statements, the same CASE
-- expressions six times. Now qso_count_key() is a QSO's place in every count table (location,
-- operator, id block, month, bucket, and the month each confirmation type was received in),
-- each kind of write groups its rows by that key once, and one statement adds the groups to
-- every table. The same rows as before are appended to the four existing tables; an import's
-- statement reads its transition table once instead of four times.
--
-- And three more tables of month counts, one per kind of list filter: per month and band (SAT
-- included), per month and mode/submode, per month and the five received statuses. A deep page
-- or a date total with one kind of filter sums those instead of qso_month_bucket_counts, whose
-- rows per month are the product of all the bucket columns' values (a generated 1M log: 77,000
-- rows summed for one location, 12-18 ms a page; 700-2,800 rows in these). Combined filters
-- (band and mode) keep summing qso_month_bucket_counts.
--
-- And the confirmation list's months: per location, operator, confirmation type and month of
-- its received date (a row of the list is a type received 'Y' with a date), so that a deep page
-- of the list starts from the received month its offset falls into instead of merging every
-- confirmation received after it (docs/api-v2/confirmation.md, "Deep pages").
CREATE TABLE qso_month_band_counts (
  station_id integer NOT NULL,
  operator   text,
  month      timestamp NOT NULL,
  band       text,
  prop_mode  text,
  n          bigint NOT NULL,
  folded     boolean NOT NULL DEFAULT false
);
CREATE TABLE qso_month_mode_counts (
  station_id integer NOT NULL,
  operator   text,
  month      timestamp NOT NULL,
  mode       text,
  submode    text,
  n          bigint NOT NULL,
  folded     boolean NOT NULL DEFAULT false
);
CREATE TABLE qso_month_qsl_counts (
  station_id                  integer NOT NULL,
  operator                    text,
  month                       timestamp NOT NULL,
  qsl_rcvd                    text,
  lotw_qsl_rcvd               text,
  eqsl_qsl_rcvd               text,
  qrzcom_qso_download_status  text,
  clublog_qso_download_status text,
  n                           bigint NOT NULL,
  folded                      boolean NOT NULL DEFAULT false
);
CREATE TABLE qso_confirmation_month_counts (
  station_id integer NOT NULL,
  operator   text,
  -- lib/qso/confirmationTypes.ts: lotw, eqsl, qsl, qrz, clublog.
  type       text NOT NULL,
  month      date NOT NULL,
  n          bigint NOT NULL,
  folded     boolean NOT NULL DEFAULT false
);
CREATE INDEX qso_confirmation_month_counts_station ON qso_confirmation_month_counts (station_id, type, month);
CREATE INDEX qso_confirmation_month_counts_unfolded ON qso_confirmation_month_counts (station_id) WHERE NOT folded;
CREATE INDEX qso_month_band_counts_station_month ON qso_month_band_counts (station_id, month);
CREATE INDEX qso_month_band_counts_unfolded ON qso_month_band_counts (station_id) WHERE NOT folded;
CREATE INDEX qso_month_mode_counts_station_month ON qso_month_mode_counts (station_id, month);
CREATE INDEX qso_month_mode_counts_unfolded ON qso_month_mode_counts (station_id) WHERE NOT folded;
CREATE INDEX qso_month_qsl_counts_station_month ON qso_month_qsl_counts (station_id, month);
CREATE INDEX qso_month_qsl_counts_unfolded ON qso_month_qsl_counts (station_id) WHERE NOT folded;

CREATE TYPE qso_count_key AS (
  station_id                  integer,
  operator                    text,
  block                       bigint,
  month                       timestamp,
  band                        text,
  mode                        text,
  submode                     text,
  prop_mode                   text,
  qsl_rcvd                    text,
  lotw_qsl_rcvd               text,
  eqsl_qsl_rcvd               text,
  qrzcom_qso_download_status  text,
  clublog_qso_download_status text,
  -- The month of each type's received date when received ('Y'), else NULL.
  lotw_month                  date,
  eqsl_month                  date,
  qsl_month                   date,
  qrz_month                   date,
  clublog_month               date
);

CREATE TYPE qso_count_delta AS (key qso_count_key, n bigint);

-- id / 4096: lib/qso/counts.ts ID_BLOCK. 'SAT' or NULL: the band filter's SAT case; 'Y' or NULL:
-- the qsl_filter's conditions.
CREATE FUNCTION qso_count_key(q qso) RETURNS qso_count_key LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ROW(q.station_id, q.operator, q.id / 4096, date_trunc('month', q.time_on), q.band, q.mode, q.submode,
             CASE WHEN q.prop_mode = 'SAT' THEN 'SAT' END,
             CASE WHEN q.qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN q.lotw_qsl_rcvd = 'Y' THEN 'Y' END,
             CASE WHEN q.eqsl_qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN q.qrzcom_qso_download_status = 'Y' THEN 'Y' END,
             CASE WHEN q.clublog_qso_download_status = 'Y' THEN 'Y' END,
             CASE WHEN q.lotw_qsl_rcvd = 'Y' THEN date_trunc('month', q.lotw_qslrdate::timestamp)::date END,
             CASE WHEN q.eqsl_qsl_rcvd = 'Y' THEN date_trunc('month', q.eqsl_qslrdate::timestamp)::date END,
             CASE WHEN q.qsl_rcvd = 'Y' THEN date_trunc('month', q.qslrdate::timestamp)::date END,
             CASE WHEN q.qrzcom_qso_download_status = 'Y' THEN date_trunc('month', q.qrzcom_qso_download_date::timestamp)::date END,
             CASE WHEN q.clublog_qso_download_status = 'Y' THEN date_trunc('month', q.clublog_qso_download_date::timestamp)::date END)::qso_count_key
$$;

-- The new tables from what is stored, folded (as a compaction leaves them).
INSERT INTO qso_confirmation_month_counts (station_id, operator, type, month, n, folded)
SELECT (k).station_id, (k).operator, t.type, t.month, count(*), true
  FROM (SELECT qso_count_key(q) AS k FROM qso q) s
       CROSS JOIN LATERAL (VALUES ('lotw', (k).lotw_month), ('eqsl', (k).eqsl_month), ('qsl', (k).qsl_month),
                                  ('qrz', (k).qrz_month), ('clublog', (k).clublog_month)) t(type, month)
 WHERE t.month IS NOT NULL GROUP BY 1, 2, 3, 4;
INSERT INTO qso_month_band_counts (station_id, operator, month, band, prop_mode, n, folded)
SELECT (k).station_id, (k).operator, (k).month, (k).band, (k).prop_mode, count(*), true
  FROM (SELECT qso_count_key(q) AS k FROM qso q) s GROUP BY 1, 2, 3, 4, 5;
INSERT INTO qso_month_mode_counts (station_id, operator, month, mode, submode, n, folded)
SELECT (k).station_id, (k).operator, (k).month, (k).mode, (k).submode, count(*), true
  FROM (SELECT qso_count_key(q) AS k FROM qso q) s GROUP BY 1, 2, 3, 4, 5;
INSERT INTO qso_month_qsl_counts (station_id, operator, month, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd,
                                  qrzcom_qso_download_status, clublog_qso_download_status, n, folded)
SELECT (k).station_id, (k).operator, (k).month, (k).qsl_rcvd, (k).lotw_qsl_rcvd, (k).eqsl_qsl_rcvd,
       (k).qrzcom_qso_download_status, (k).clublog_qso_download_status, count(*), true
  FROM (SELECT qso_count_key(q) AS k FROM qso q) s GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;

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
