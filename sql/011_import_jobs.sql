-- Background imports (POST /api/v2/qso with Prefer: respond-async): the upload is spooled under
-- the data folder and imported by the process that received it. State lives here so that every
-- API process can show and cancel any job, and a restarted process can fail the jobs its
-- predecessor left behind.
CREATE TABLE IF NOT EXISTS import_jobs (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id          integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  station_id       integer NOT NULL REFERENCES stations(id) ON DELETE CASCADE,
  state            text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  dry_run          boolean NOT NULL DEFAULT false,
  -- The forced OPERATOR of a club member below officer level, as the synchronous import has it.
  operator         text,
  file_name        text,
  -- Null while the upload is still being received.
  bytes_total      bigint,
  bytes_done       bigint NOT NULL DEFAULT 0,
  records_done     integer NOT NULL DEFAULT 0,
  summary          jsonb,
  error            text,
  cancel_requested boolean NOT NULL DEFAULT false,
  -- Which process holds the spool and runs the job: host, pid, and a per-start instance id.
  runner_host      text NOT NULL,
  runner_pid       integer NOT NULL,
  runner_instance  text NOT NULL,
  spool_path       text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz,
  finished_at      timestamptz
);

CREATE INDEX IF NOT EXISTS import_jobs_user_recent ON import_jobs (user_id, id DESC);
CREATE INDEX IF NOT EXISTS import_jobs_active ON import_jobs (runner_host) WHERE state IN ('queued', 'running');

-- The duplicate policy of the upload (on_duplicate, insert_unmatched), applied when the job runs.
ALTER TABLE import_jobs ADD COLUMN IF NOT EXISTS on_duplicate text CHECK (on_duplicate IN ('skip', 'confirm', 'merge'));
ALTER TABLE import_jobs ADD COLUMN IF NOT EXISTS insert_unmatched boolean NOT NULL DEFAULT false;
