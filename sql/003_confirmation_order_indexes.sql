-- The confirmation list orders each type's rows by received date, newest first, then by QSO id.
-- With the id in the partial index, every (station, type) branch of the list query reads its rows
-- already in that order (an index-only scan), so a page is a merge of ordered streams instead of a
-- sort of every confirmation (numbers in docs/api-v2/confirmation.md).
-- Same names and predicates as before, so the qsl_filter of the QSO list keeps using them.
DROP INDEX qso_conf_qsl;
DROP INDEX qso_conf_lotw;
DROP INDEX qso_conf_eqsl;
DROP INDEX qso_conf_qrz;
DROP INDEX qso_conf_clublog;
CREATE INDEX qso_conf_qsl ON qso (station_id, qslrdate DESC, id) WHERE qsl_rcvd = 'Y';
CREATE INDEX qso_conf_lotw ON qso (station_id, lotw_qslrdate DESC, id) WHERE lotw_qsl_rcvd = 'Y';
CREATE INDEX qso_conf_eqsl ON qso (station_id, eqsl_qslrdate DESC, id) WHERE eqsl_qsl_rcvd = 'Y';
CREATE INDEX qso_conf_qrz ON qso (station_id, qrzcom_qso_download_date DESC, id) WHERE qrzcom_qso_download_status = 'Y';
CREATE INDEX qso_conf_clublog ON qso (station_id, clublog_qso_download_date DESC, id) WHERE clublog_qso_download_status = 'Y';
