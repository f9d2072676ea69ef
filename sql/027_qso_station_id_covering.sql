-- A page read in id order with band, mode or qsl_filter (ADIF pages, since_id) tested each
-- QSO's filter columns on its row: it read the whole row of every QSO it passed (1,000 matches
-- of 20m CW, one QSO in 55: 55,000 rows). With those columns in the location's id index (band,
-- mode, submode, prop_mode, the five received statuses of qsl_filter), the page picks its ids
-- from the index alone (an index-only scan where the table is all-visible) and reads only its
-- own rows: 18 → 9 ms for a page of 20m CW (probe, benchmarks/RESULTS.md).
CREATE INDEX qso_station_id_covering ON qso (station_id, id)
  INCLUDE (band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd, eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status);
DROP INDEX qso_station_id;
ALTER INDEX qso_station_id_covering RENAME TO qso_station_id;
