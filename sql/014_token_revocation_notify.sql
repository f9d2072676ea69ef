-- Revoking (or deleting) a v2 token tells the API processes, which tell the live-update workers
-- to end the browser tokens minted from it (lib/live/revocationListener.ts). A trigger, so that
-- every door that revokes (today `logbook token revoke`, a process of its own) is covered, and
-- NOTIFY, so that it is delivered when the revoking transaction commits and never before.
CREATE OR REPLACE FUNCTION api_token_revoked_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('logbook_token_revoked', OLD.id::text);
  RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS api_token_revoked ON api_tokens;
CREATE TRIGGER api_token_revoked
  AFTER UPDATE OF revoked_at ON api_tokens
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
  EXECUTE FUNCTION api_token_revoked_notify();

DROP TRIGGER IF EXISTS api_token_deleted ON api_tokens;
CREATE TRIGGER api_token_deleted
  AFTER DELETE ON api_tokens
  FOR EACH ROW EXECUTE FUNCTION api_token_revoked_notify();
