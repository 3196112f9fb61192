-- Media (C2): files uploaded through the general upload form, and durable video-processing jobs.

CREATE TABLE IF NOT EXISTS uploaded_files (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('image', 'video', 'document')),
  -- Relative to MEDIA_DIR.
  path text NOT NULL,
  mime_type text NOT NULL,
  size bigint NOT NULL,
  original_name text NOT NULL DEFAULT '',
  -- {width, height, format} measured from the bytes, plus the client's own metadata object.
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  client_metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  processing_status text NOT NULL DEFAULT 'completed',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS uploaded_files_user_idx ON uploaded_files (user_id, created_at DESC);

-- One row per processing run of a content item's main video. Workers on any node claim a row
-- with FOR UPDATE SKIP LOCKED, hold it with a lease they keep extending (heartbeat), and a row
-- whose lease ran out (its worker died) is claimed again.
CREATE TABLE IF NOT EXISTS video_jobs (
  id uuid PRIMARY KEY,
  content_id uuid NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  -- Relative to MEDIA_DIR.
  input_path text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 3,
  locked_by text,
  lease_until timestamptz,
  heartbeat_at timestamptz,
  run_after timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);
-- The claim query scans only live jobs.
CREATE INDEX IF NOT EXISTS video_jobs_claim_idx ON video_jobs (run_after) WHERE status IN ('queued', 'running');
CREATE INDEX IF NOT EXISTS video_jobs_content_idx ON video_jobs (content_id, created_at DESC);
-- At most one live job per content item.
CREATE UNIQUE INDEX IF NOT EXISTS video_jobs_one_live_per_content ON video_jobs (content_id) WHERE status IN ('queued', 'running');

-- contents comes from 0002_content (applied before this file); the guard keeps this file
-- applicable on its own too.
DO $$
BEGIN
  IF to_regclass('contents') IS NOT NULL THEN
    ALTER TABLE video_jobs ADD CONSTRAINT video_jobs_content_fk FOREIGN KEY (content_id) REFERENCES contents(id) ON DELETE CASCADE;
  END IF;
END
$$;
