-- qso_month_counts keeps the five received statuses ('Y' or none) in its key, as qso_counts
-- does, so a confirmation list over a range of QSO dates sums its whole months' confirmations
-- from here instead of reading each QSO of the range (a year of 210k QSOs: 50 ms of index
-- entries; docs/storage.md). A create still appends one row; an update that changes a status now
-- moves a count between two rows of its month. The table is rebuilt beside the old one and
-- swapped in: writers wait while it runs (the lock), readers only for the swap at the end.
LOCK TABLE qso IN SHARE ROW EXCLUSIVE MODE;
CREATE TABLE qso_month_counts_statuses (
  station_id integer NOT NULL,
  operator text,
  month timestamp without time zone NOT NULL,
  qsl_rcvd text,
  lotw_qsl_rcvd text,
  eqsl_qsl_rcvd text,
  qrzcom_qso_download_status text,
  clublog_qso_download_status text,
  n bigint NOT NULL,
  folded boolean DEFAULT false NOT NULL
);
INSERT INTO qso_month_counts_statuses (station_id, operator, month, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd,
                                       qrzcom_qso_download_status, clublog_qso_download_status, n, folded)
SELECT station_id, operator, date_trunc('month', time_on),
       CASE WHEN qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN lotw_qsl_rcvd = 'Y' THEN 'Y' END,
       CASE WHEN eqsl_qsl_rcvd = 'Y' THEN 'Y' END, CASE WHEN qrzcom_qso_download_status = 'Y' THEN 'Y' END,
       CASE WHEN clublog_qso_download_status = 'Y' THEN 'Y' END, count(*), true
  FROM qso GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
DROP TABLE qso_month_counts;
ALTER TABLE qso_month_counts_statuses RENAME TO qso_month_counts;
CREATE UNIQUE INDEX qso_month_counts_folded ON qso_month_counts (station_id, operator, month, qsl_rcvd, lotw_qsl_rcvd,
  eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status) NULLS NOT DISTINCT WHERE folded;
CREATE INDEX qso_month_counts_station_month ON qso_month_counts (station_id, month);
CREATE INDEX qso_month_counts_unfolded ON qso_month_counts (station_id) WHERE NOT folded;
