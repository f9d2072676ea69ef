-- One round trip per rate-limit check, atomic across API processes: prune the key's window,
-- report count and oldest hit, and record this hit when it is under the limit.
CREATE FUNCTION rate_limit_hit(p_key text, p_now double precision, p_window double precision, p_max integer,
                               OUT count integer, OUT oldest double precision)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext(p_key));
  DELETE FROM rate_limit_hits WHERE bucket_key = p_key AND hit_at <= p_now - p_window;
  SELECT count(*)::integer, min(hit_at) INTO count, oldest FROM rate_limit_hits WHERE bucket_key = p_key;
  IF count < p_max THEN
    INSERT INTO rate_limit_hits (bucket_key, hit_at) VALUES (p_key, p_now);
  END IF;
END;
$$;
