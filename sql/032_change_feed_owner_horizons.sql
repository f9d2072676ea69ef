-- The change feed's retention horizon per owner (issue 47, defect 9): pruning one user's
-- tombstones expires only that user's cursors. Cursors issued under the shared horizon were
-- unsigned and are refused as expired (410) by the signed-cursor code, so it is not carried over.
CREATE TABLE IF NOT EXISTS qso_change_owner_horizon (
  user_id        integer PRIMARY KEY,
  pruned_through bigint NOT NULL DEFAULT 0
);
DROP TABLE IF EXISTS qso_change_horizon;

-- Keys the server signs with, created once by the first process that needs one (a random value
-- from that process) and shared by every API process of the instance: lib/db/serverKeys.ts.
CREATE TABLE IF NOT EXISTS server_keys (
  name       text PRIMARY KEY,
  secret     bytea NOT NULL CHECK (length(secret) >= 32),
  created_at timestamptz NOT NULL DEFAULT now()
);
