-- The lookups a logger or a widget makes for every callsign and locator it sees read every QSO
-- of a DXCC entity or every QSO with a locator (benchmarks/lookups.ts, 1M QSOs of the owner):
-- private_lookup 360-375 ms, where its entity's confirmation flags aggregated all the entity's
-- QSOs through qso_station_dxcc (sql/005: 8 ms for an entity with few QSOs, but a log holds
-- hundreds of thousands of its own country's); logbook_check_grid and lookup?grid 190-200 ms, a
-- LIKE over every QSO.
--
-- The entity's flags ask only whether a QSO confirmed by card or LoTW exists (overall, on a band,
-- on a band and mode): each is a probe of the confirmed QSOs alone, by entity and band, the mode
-- and the scope's operator read from the index. qso_station_dxcc served nothing else (the DXCC
-- statistics count over the whole scope), so it goes: the new index holds only confirmed QSOs.
CREATE INDEX qso_station_dxcc_confirmed ON qso (station_id, dxcc, band) INCLUDE (mode, submode, prop_mode, operator)
  WHERE qsl_rcvd = 'Y' OR lotw_qsl_rcvd = 'Y';
DROP INDEX qso_station_dxcc;

-- A square is a prefix of the QSO's locator (2-10 characters), or of one entry of its VUCC grids
-- (a contact on a grid line or corner, rare): a prefix range of the locators, and the few QSOs
-- that have VUCC grids at all.
CREATE INDEX qso_station_grid ON qso (station_id, gridsquare text_pattern_ops) WHERE gridsquare <> '';
CREATE INDEX qso_station_vucc ON qso (station_id) WHERE vucc_grids <> '';
