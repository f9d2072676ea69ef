-- The confirmation list's filters on the QSO (qso_since/qso_until, band, mode; docs/storage.md)
-- read from the received-date indexes themselves: each of qso_conf_* now includes time_on,
-- band, mode, submode and prop_mode, so a branch of the merge tests them without fetching the
-- row (a year's range walked 107k entries with a fetch each; band=20m fetched 11 rows per row
-- kept). They are partial (confirmed QSOs only): a create that is not confirmed pays nothing.
-- Writers wait while it runs (the lock), readers do not.
LOCK TABLE qso IN SHARE ROW EXCLUSIVE MODE;
DROP INDEX qso_conf_qsl, qso_conf_lotw, qso_conf_eqsl, qso_conf_qrz, qso_conf_clublog;
CREATE INDEX qso_conf_qsl ON qso (station_id, qslrdate DESC, id) INCLUDE (time_on, band, mode, submode, prop_mode) WHERE qsl_rcvd = 'Y';
CREATE INDEX qso_conf_lotw ON qso (station_id, lotw_qslrdate DESC, id) INCLUDE (time_on, band, mode, submode, prop_mode) WHERE lotw_qsl_rcvd = 'Y';
CREATE INDEX qso_conf_eqsl ON qso (station_id, eqsl_qslrdate DESC, id) INCLUDE (time_on, band, mode, submode, prop_mode) WHERE eqsl_qsl_rcvd = 'Y';
CREATE INDEX qso_conf_qrz ON qso (station_id, qrzcom_qso_download_date DESC, id) INCLUDE (time_on, band, mode, submode, prop_mode) WHERE qrzcom_qso_download_status = 'Y';
CREATE INDEX qso_conf_clublog ON qso (station_id, clublog_qso_download_date DESC, id) INCLUDE (time_on, band, mode, submode, prop_mode) WHERE clublog_qso_download_status = 'Y';
