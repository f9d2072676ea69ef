-- Satellite QSOs (the band filter SAT: prop_mode = 'SAT') per station in list order. The QSO
-- list reads its page and its count from this small partial index instead of filtering every
-- QSO of the station (a parallel scan of the whole table for the count).
CREATE INDEX qso_station_sat_time ON qso (station_id, time_on DESC, id DESC) WHERE prop_mode = 'SAT';
