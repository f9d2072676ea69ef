-- Rate-limit rows carry their expiry, so that one periodic DELETE drops every expired window
-- (before, rows were pruned only for the key being hit, and a flood of distinct keys stayed
-- forever). Rows already stored do not know their window: they are dropped, which forgets at
-- most one window of hits once, at the upgrade.
DELETE FROM rate_limit_hits;
ALTER TABLE rate_limit_hits ADD COLUMN expires_at double precision NOT NULL;
CREATE INDEX rate_limit_hits_expiry ON rate_limit_hits (expires_at);

CREATE OR REPLACE FUNCTION rate_limit_hit(p_key text, p_now double precision, p_window double precision, p_max integer,
                                          OUT count integer, OUT oldest double precision)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext(p_key));
  DELETE FROM rate_limit_hits WHERE bucket_key = p_key AND hit_at <= p_now - p_window;
  SELECT count(*)::integer, min(hit_at) INTO count, oldest FROM rate_limit_hits WHERE bucket_key = p_key;
  IF count < p_max THEN
    INSERT INTO rate_limit_hits (bucket_key, hit_at, expires_at) VALUES (p_key, p_now, p_now + p_window);
  END IF;
END;
$$;
