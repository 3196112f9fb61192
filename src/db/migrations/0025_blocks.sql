-- Blocks, CONTRACT §21: `blocker_id` blocked `blocked_id` at `created_at`. One row per ordered
-- pair; never oneself. The effects (no follow, comment, message, mention, notification, presence
-- or typing between the two; the blocker sees nothing of the blocked user's) are read from here
-- (src/blocks/).
--
-- When a user leaves (CONTRACT §22): every row naming them, on either side, goes with their
-- account (both columns cascade from users), so nothing of a block outlives either user.
CREATE TABLE IF NOT EXISTS blocks (
  blocker_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  blocked_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (blocker_id, blocked_id),
  CHECK (blocker_id <> blocked_id)
);
-- Who blocked a user (the "either way" checks and the socket filters read both directions).
CREATE INDEX IF NOT EXISTS blocks_blocked_idx ON blocks (blocked_id, blocker_id);
-- A blocker's list, newest first (GET /users/blocked, keyset on (created_at, blocked_id)).
CREATE INDEX IF NOT EXISTS blocks_blocker_list_idx ON blocks (blocker_id, created_at DESC, blocked_id DESC);
