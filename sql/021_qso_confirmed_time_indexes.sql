-- Newest-first pages filtered by confirmation (qsl_filter) read each location's confirmed QSOs
-- of a type in (time_on DESC, id DESC) order. The confirmation indexes are in confirmation-date
-- order (the confirmation list's), so such a page walked qso_station_time testing the status row
-- by row past every newer unconfirmed QSO: the newest QSOs of a log are the unconfirmed ones, so
-- page 1 of qsl_filter=lotw read 22,000 of them on a 2M-QSO log (5-10 ms of the database's CPU).
-- Partial: a QSO enters one only once confirmed, so storing new (unconfirmed) QSOs costs a
-- predicate test per index.
CREATE INDEX qso_confirmed_qsl_time ON qso (station_id, time_on DESC, id DESC) WHERE qsl_rcvd = 'Y';
CREATE INDEX qso_confirmed_lotw_time ON qso (station_id, time_on DESC, id DESC) WHERE lotw_qsl_rcvd = 'Y';
CREATE INDEX qso_confirmed_eqsl_time ON qso (station_id, time_on DESC, id DESC) WHERE eqsl_qsl_rcvd = 'Y';
CREATE INDEX qso_confirmed_qrz_time ON qso (station_id, time_on DESC, id DESC) WHERE qrzcom_qso_download_status = 'Y';
CREATE INDEX qso_confirmed_clublog_time ON qso (station_id, time_on DESC, id DESC) WHERE clublog_qso_download_status = 'Y';
