-- Taking one's data (CONTRACT §22): one row per export a user asked for. A durable job (any
-- node's worker, claimed with a lease like account_erasures) writes the ZIP to the shared media
-- store under a dot directory the media server never serves (MEDIA_DIR/.exports/<id>.zip); the
-- owner downloads it with their bearer token for 24 hours after it is ready, then the file is
-- removed and the row says expired. When the user leaves, the erasure removes the rows and files.
CREATE TABLE data_exports (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'expired')),
  requested_at timestamptz NOT NULL DEFAULT now(),
  ready_at timestamptz,
  expires_at timestamptz,
  -- Relative to MEDIA_DIR, once written.
  file_path text,
  size bigint,
  attempts integer NOT NULL DEFAULT 0,
  claimed_by text,
  claimed_until timestamptz,
  last_error text
);
CREATE INDEX data_exports_user_idx ON data_exports (user_id, requested_at DESC);
CREATE INDEX data_exports_pending_idx ON data_exports (requested_at) WHERE status = 'pending';
CREATE INDEX data_exports_ready_idx ON data_exports (expires_at) WHERE status = 'ready';
