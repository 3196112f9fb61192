-- Snapshots of the listed rows (docs/search.md, "Start from a snapshot"): a node starting reads
-- the newest complete one instead of reading every listed row again, then catches up with the
-- rows changed since. Written by one node at a time (an advisory lock); only the newest complete
-- snapshot is kept, with at most one being written beside it.
CREATE TABLE listing_snapshots (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The encoding of the chunks (index-snapshot.ts): a reader of another format loads from the rows.
  format integer NOT NULL,
  -- The row columns, in the order each encoded row gives its values (the last one the row's version).
  columns text[] NOT NULL,
  -- The columns whose values are timestamps (written as ISO text).
  date_columns text[] NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  -- Set once every chunk is written: only a complete snapshot is read.
  completed_at timestamptz,
  row_count integer NOT NULL DEFAULT 0,
  chunk_count integer NOT NULL DEFAULT 0
);

CREATE TABLE listing_snapshot_chunks (
  snapshot_id bigint NOT NULL REFERENCES listing_snapshots(id) ON DELETE CASCADE,
  seq integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (snapshot_id, seq)
);
