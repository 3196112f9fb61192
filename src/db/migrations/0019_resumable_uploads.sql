-- Resumable (tus) uploads, CONTRACT §24. The bytes live in files on shared storage
-- (MEDIA_DIR/.resumable/<id>, their size is the upload's offset); this row is who may touch the
-- upload, what it is for, and the lease that lets one request at a time write to it, on any node.
--
-- When its user leaves (CONTRACT §22): the erasure job deletes the user's content items, which
-- removes these rows (content_id cascades; user_id cascades too, should the user row itself ever
-- be deleted); a file left without its row is removed by the expiry sweep. Whatever happens, a row
-- lives at most RESUMABLE_UPLOAD_TTL seconds after its creation: the sweep then removes it and
-- its bytes.
CREATE TABLE IF NOT EXISTS resumable_uploads (
  id uuid PRIMARY KEY,
  -- The uploader: the only user who may touch the upload.
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  content_id uuid NOT NULL REFERENCES contents(id) ON DELETE CASCADE,
  -- Absent for the main video; the extra-media key (e.g. video_images_url) otherwise.
  topic_key text,
  -- The client's file name as sent (shown, never used as a path).
  filename text NOT NULL DEFAULT '',
  -- Upload-Length, declared at creation.
  size bigint NOT NULL CHECK (size > 0),
  -- The Upload-Metadata pairs as sent (HEAD echoes them, as tus asks).
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- uploading: bytes still coming; completing: the last byte arrived and the file is being
  -- checked and handed to the item; completed: the item has it (no bytes left here).
  state text NOT NULL DEFAULT 'uploading' CHECK (state IN ('uploading', 'completing', 'completed')),
  completing_since timestamptz,
  -- The lease of the request writing to the upload (two at once: the second is refused).
  locked_by text,
  lock_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS resumable_uploads_expiry_idx ON resumable_uploads (expires_at);
CREATE INDEX IF NOT EXISTS resumable_uploads_content_idx ON resumable_uploads (content_id);
