-- public_log_base_call (sql/046) leads qso_dupe_key since sql/054, so every row an import or a
-- create writes computes it: as written there (a SELECT … FROM a subquery, STRICT) PostgreSQL
-- cannot inline it, and each call ran the SQL-function executor and a regular expression, about
-- as much as the rest of the key's upkeep (benchmarks/RESULTS.md, "The eleventh index"). The
-- same rule as one expression: a call without '/' is its upper case, the rest as before. The
-- results are the same for every call (test/db/dupeKeyBase.test.ts holds the two to each other),
-- so the index built with the old body stays valid. Not STRICT: PostgreSQL does not inline a
-- STRICT function whose body has a CASE; NULL still gives NULL.
CREATE OR REPLACE FUNCTION public_log_base_call(call text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN strpos(call, '/') = 0 THEN upper(call)
    WHEN regexp_replace(upper(call), '(/(P|M|MM|QRP))+$', '') ~ '^[^/]+/[^/]+$'
         AND length(split_part(regexp_replace(upper(call), '(/(P|M|MM|QRP))+$', ''), '/', 2))
             >= length(split_part(regexp_replace(upper(call), '(/(P|M|MM|QRP))+$', ''), '/', 1))
      THEN split_part(regexp_replace(upper(call), '(/(P|M|MM|QRP))+$', ''), '/', 2)
    ELSE regexp_replace(upper(call), '(/(P|M|MM|QRP))+$', '')
  END
$$;
