-- Reports and moderation decisions (CONTRACT §21): what users report, what a moderator decided,
-- and the marks a decision leaves on content, comments and users (docs/moderation.md).

-- One report of one target by one user. target_id names a content item, a comment, a chat
-- message or a user (no foreign key: the target may be any of four tables). At most one open
-- report per reporter and target. reporter_verified: whether the reporter's phone was verified
-- when they reported (only those count towards the hold). When a reporter's user row goes, their
-- reports stay (the target was still reported) without who made them; the account erasure of
-- CONTRACT §22 also blanks their notes (docs/moderation.md).
CREATE TABLE reports (
  id uuid PRIMARY KEY,
  reporter_id uuid REFERENCES users(id) ON DELETE SET NULL,
  reporter_verified boolean NOT NULL,
  target_type text NOT NULL CHECK (target_type IN ('content', 'comment', 'message', 'user')),
  target_id uuid NOT NULL,
  -- The target's author (the user itself for a user report), whom a decision acts on.
  target_owner_id uuid REFERENCES users(id) ON DELETE CASCADE,
  reason text NOT NULL CHECK (reason IN ('spam', 'scam', 'offensive', 'misleading_listing', 'duplicate', 'other')),
  note text CHECK (char_length(note) <= 1000),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  action text CHECK (action IN ('dismiss', 'remove', 'suspend_user', 'warn')),
  resolved_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX reports_open_once_idx ON reports (reporter_id, target_type, target_id) WHERE status = 'open';
CREATE INDEX reports_target_idx ON reports (target_type, target_id, status);
CREATE INDEX reports_reporter_idx ON reports (reporter_id, created_at);
CREATE INDEX reports_queue_idx ON reports (status, created_at);

-- A moderation mark on a content item: `under_review` (held after REPORT_HOLD_THRESHOLD reports)
-- or `removed` (a moderator's decision), with the moderator's note shown to the owner.
-- suspension_hold: the uploader is suspended (lifted by restore). Either takes the item out of
-- every listing; its owner sees the mark as its status.
ALTER TABLE contents
  ADD COLUMN moderation_status text CHECK (moderation_status IN ('under_review', 'removed')),
  ADD COLUMN moderation_note text,
  ADD COLUMN suspension_hold boolean NOT NULL DEFAULT false;

-- A comment a moderator removed reads as deleted: its text is cleared.
ALTER TABLE comments ADD COLUMN removed_at timestamptz;

-- A suspended user cannot log in and has no session (lifted by restore).
ALTER TABLE users ADD COLUMN suspended_at timestamptz;
