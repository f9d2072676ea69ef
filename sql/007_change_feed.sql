-- The change feed and commit-safe since_id (docs/change-feed.md has the argument in full).
--
-- Every QSO row carries the id of the transaction that last wrote it (txid): a column default on
-- insert, a trigger on update. Deletions, and moves out of a location or away from an operator,
-- leave a tombstone in qso_deletions. Readers order changes by (txid, id) and cut each page below
-- the lowest transaction (and the lowest QSO id) that a still running writer of the same owner
-- may commit. Writers make themselves visible for that before they write anything, with
-- qso_write_begin(): shared advisory locks that other sessions see at once in pg_locks.

-- Existing rows were written before the feed existed: transaction 0, ordered by id.
ALTER TABLE qso ADD COLUMN txid xid8 NOT NULL DEFAULT '0';
ALTER TABLE qso ALTER COLUMN txid SET DEFAULT pg_current_xact_id();
CREATE INDEX qso_station_txid ON qso (station_id, txid, id);

CREATE TABLE qso_deletions (
  qso_id      bigint NOT NULL,
  station_id  integer NOT NULL,
  -- The location's owner when the QSO left it: the tombstones of a deleted location stay
  -- reachable by the owner's feed.
  user_id     integer,
  operator    text,
  txid        xid8 NOT NULL DEFAULT pg_current_xact_id(),
  deleted_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX qso_deletions_owner_txid ON qso_deletions (user_id, txid, qso_id);
CREATE INDEX qso_deletions_deleted_at ON qso_deletions (deleted_at);

-- The highest transaction whose tombstones retention has removed: a cursor behind it that was
-- issued before that removal may have missed deletions (410 cursor_expired).
CREATE TABLE qso_change_horizon (
  singleton     boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  pruned_through bigint NOT NULL DEFAULT 0
);
INSERT INTO qso_change_horizon DEFAULT VALUES;

-- Advisory lock namespaces (first key of the two-key form): 0x51_0a is the per-location import
-- lock (lib/import/staging.ts); 0x51_0b is "a transaction of this owner may write QSOs".
-- The QSO id floor of a writer is a one-key (bigint) lock: the only one-key advisory locks a
-- QSO-writing transaction holds.
CREATE FUNCTION qso_write_begin(p_owners integer[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  declared text := current_setting('logbook.qso_writers', true);
  owner integer;
  id_floor bigint;
BEGIN
  IF declared IS NOT NULL AND declared <> '' THEN
    -- Already declared in this transaction: fine for the same owners, refused for new ones once
    -- the transaction holds an id (readers could not see it in time).
    IF string_to_array(declared, ',')::integer[] @> p_owners THEN RETURN; END IF;
  END IF;
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'qso_write_begin() must run before the transaction writes anything'
      USING ERRCODE = 'P0001', HINT = 'call beginQsoWrite() right after BEGIN';
  END IF;
  -- Every id this transaction draws from the sequence is at least last_value.
  SELECT last_value INTO id_floor FROM qso_id_seq;
  PERFORM pg_advisory_xact_lock_shared(id_floor);
  FOREACH owner IN ARRAY p_owners LOOP
    PERFORM pg_advisory_xact_lock_shared(x'510b'::integer, owner);
  END LOOP;
  PERFORM set_config('logbook.qso_writers',
    array_to_string(ARRAY(SELECT DISTINCT unnest(coalesce(string_to_array(nullif(declared, ''), ',')::integer[], '{}') || p_owners)), ','),
    true);
END;
$$;

-- A write to qso without qso_write_begin() could commit below a page a reader already cut: refuse it.
CREATE FUNCTION qso_require_writer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('logbook.qso_writers', true), '') = '' THEN
    RAISE EXCEPTION 'a transaction writing QSOs must call qso_write_begin() first' USING ERRCODE = 'P0001';
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER qso_require_writer BEFORE INSERT OR UPDATE OR DELETE ON qso
  FOR EACH STATEMENT EXECUTE FUNCTION qso_require_writer();

-- An update is a change: the row moves to the end of the feed in its new state.
CREATE FUNCTION qso_stamp_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.txid := pg_current_xact_id();
  RETURN NEW;
END;
$$;
CREATE TRIGGER qso_stamp_change BEFORE UPDATE ON qso FOR EACH ROW EXECUTE FUNCTION qso_stamp_change();

-- Moving a QSO to another location, or to another operator, takes it out of a filtered feed.
CREATE FUNCTION qso_record_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO qso_deletions (qso_id, station_id, user_id, operator)
  SELECT OLD.id, OLD.station_id, s.user_id, OLD.operator FROM stations s WHERE s.id = OLD.station_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER qso_record_move AFTER UPDATE OF station_id, operator ON qso FOR EACH ROW
  WHEN (OLD.station_id IS DISTINCT FROM NEW.station_id OR OLD.operator IS DISTINCT FROM NEW.operator)
  EXECUTE FUNCTION qso_record_move();

-- One INSERT per deleting statement, however many rows it deletes.
CREATE FUNCTION qso_record_deletions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO qso_deletions (qso_id, station_id, user_id, operator)
  SELECT o.id, o.station_id, s.user_id, o.operator FROM deleted_rows o LEFT JOIN stations s ON s.id = o.station_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER qso_record_deletions AFTER DELETE ON qso REFERENCING OLD TABLE AS deleted_rows
  FOR EACH STATEMENT EXECUTE FUNCTION qso_record_deletions();

-- What a page may contain (run on its own, before the page's query takes its snapshot): every
-- writer of these owners with a transaction id below xid_bound, or a QSO id below id_bound, has
-- ended, so a snapshot taken afterwards sees all it committed.
CREATE FUNCTION qso_change_bounds(p_owners integer[], OUT xid_bound bigint, OUT id_bound bigint)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  next_xid bigint;
  seq_last bigint;
BEGIN
  -- First, separately: everything below these was assigned before the writers are looked up.
  next_xid := pg_snapshot_xmax(pg_current_snapshot())::text::bigint;
  SELECT last_value INTO seq_last FROM qso_id_seq;
  WITH holders AS (
    SELECT l.pid, l.virtualtransaction FROM pg_locks l
     WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND l.classid = x'510b'::integer::oid AND l.objsubid = 2 AND l.objid::bigint = ANY(p_owners::bigint[])
  )
  SELECT least(next_xid, min(next_xid + ((a.backend_xid::text::bigint - (next_xid & 4294967295) + 6442450944) % 4294967296) - 2147483648)),
         least(seq_last + 1, (SELECT min((f.classid::bigint << 32) | f.objid::bigint) FROM pg_locks f JOIN holders h ON f.virtualtransaction = h.virtualtransaction
                               WHERE f.locktype = 'advisory' AND f.objsubid = 1))
    INTO xid_bound, id_bound
    FROM holders h LEFT JOIN pg_stat_activity a ON a.pid = h.pid AND a.backend_xid IS NOT NULL;
END;
$$;
