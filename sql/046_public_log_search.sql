-- The public log search (docs/public-log.md, "Search"): the call a QSO's callsign is found under
-- when the searcher gives no portable form of their own. Trailing /P, /M, /MM, /QRP go; then of
-- a single remaining 'A/B' the part after the slash, when it is at least as long as the part
-- before (a prefix such as EA8/): EA8/G4ABC/P → G4ABC, G4ABC/EA8 stays. This function is the
-- rule's one source: the index and the search both use it.
CREATE OR REPLACE FUNCTION public_log_base_call(call text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN s ~ '^[^/]+/[^/]+$' AND length(split_part(s, '/', 2)) >= length(split_part(s, '/', 1))
              THEN split_part(s, '/', 2) ELSE s END
    FROM (SELECT regexp_replace(upper(call), '(/(P|M|MM|QRP))+$', '') AS s) AS stripped
$$;
CREATE INDEX IF NOT EXISTS qso_station_public_base_call ON qso (station_id, public_log_base_call(call));
