-- Import jobs held by a lease: the process that holds a job (its spool, its run) renews
-- heartbeat_at about once a second. A job whose heartbeat is older than the lease
-- (import_jobs.lease_seconds) belongs to a process that is gone, on whatever host: any process
-- fails it. spool_bytes is the disk its spool file may take (reserved before it is written, 0
-- once the file is removed); the spool quota (import_jobs.max_spool_bytes) is their sum over
-- the jobs whose holder is alive.
ALTER TABLE import_jobs ADD COLUMN IF NOT EXISTS heartbeat_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE import_jobs ADD COLUMN IF NOT EXISTS spool_bytes bigint NOT NULL DEFAULT 0 CHECK (spool_bytes >= 0);
CREATE INDEX IF NOT EXISTS import_jobs_spooled ON import_jobs (id) WHERE spool_bytes > 0;
