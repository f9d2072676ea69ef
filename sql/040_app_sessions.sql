-- Browser sign-in (docs/security.md "Accounts and sessions"): a password per user, kept only as a
-- self-describing scrypt string (lib/auth/passwords.ts); NULL means the user cannot sign in.
ALTER TABLE users ADD COLUMN IF NOT EXISTS password_hash text;

-- Server-side sessions. The cookie's value is never stored: id_hash is its SHA-256; the
-- session's api token is kept sealed under a key derived from the cookie value, so that the
-- table alone reveals neither.
CREATE TABLE IF NOT EXISTS app_sessions (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id_hash          text NOT NULL UNIQUE,
  user_id          integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf             text NOT NULL,
  acting_club_id   integer REFERENCES users(id) ON DELETE SET NULL,
  api_token_sealed text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_seen_at     timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS app_sessions_user ON app_sessions (user_id);
CREATE INDEX IF NOT EXISTS app_sessions_expires ON app_sessions (expires_at);

-- A session's api token goes with its session (the delete trigger of sql/014 then ends the
-- live sockets opened with it); such tokens are never listed among the user's tokens.
ALTER TABLE api_tokens ADD COLUMN IF NOT EXISTS session_id bigint REFERENCES app_sessions(id) ON DELETE CASCADE;
CREATE INDEX IF NOT EXISTS api_tokens_session ON api_tokens (session_id) WHERE session_id IS NOT NULL;

-- What the app shows of a v1 key (its value is kept only as a hash): "wl…" and its last 4 characters.
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS key_hint text;
