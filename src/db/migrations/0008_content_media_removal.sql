-- Deleted content (CONTRACT §19): the item's media is withdrawn when it is deleted, and the
-- scheduled `media-removal` job finishes any withdrawal a node did not (it died after the delete
-- committed, or the file system refused). `media_removed_at` records that the files are gone;
-- the partial index keeps the job's search to the few deleted items still waiting.
ALTER TABLE contents ADD COLUMN IF NOT EXISTS media_removed_at timestamptz;
CREATE INDEX IF NOT EXISTS contents_media_removal_idx ON contents (deleted_at)
  WHERE deleted_at IS NOT NULL AND media_removed_at IS NULL;
