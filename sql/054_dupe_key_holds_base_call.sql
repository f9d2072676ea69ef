-- At most 10 indexes on qso (issue 51; docs/storage.md). The public log's search index
-- (station_id, public_log_base_call(call)) of sql/046 folds into the duplicate key, which now
-- leads with the same two: (station_id, public_log_base_call(call), call, minute of time_on,
-- band, mode). The base call is a function of the call, so the key is unique exactly when the
-- old one was (every INSERT names no conflict target: ON CONFLICT DO NOTHING keeps its meaning),
-- and an import writes one index entry a row less. A lookup by call names the base too
-- (callCondition, lib/qso/filters.ts) so that it seeks rather than walk the location's entries.
-- public_log_base_call must stay IMMUTABLE in fact: the key is built from it.
-- Writers wait while it runs (the lock), readers do not.
LOCK TABLE qso IN SHARE ROW EXCLUSIVE MODE;
CREATE UNIQUE INDEX qso_dupe_key_with_base ON qso (station_id, public_log_base_call(call), call, date_trunc('minute', time_on), band, mode);
DROP INDEX qso_dupe_key;
DROP INDEX IF EXISTS qso_station_public_base_call;
ALTER INDEX qso_dupe_key_with_base RENAME TO qso_dupe_key;
