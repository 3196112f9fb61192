-- Chat beyond sending (CONTRACT §18): edits and tombstones, reactions on messages, each member's
-- read position, and the presence's durable part (when a user was last seen).

-- edited_at: set by an edit (within 15 minutes of created_at). deleted_at: a tombstone; the text
-- and attachments are cleared at deletion so nothing of a deleted message stays readable.
ALTER TABLE chat_messages
  ADD COLUMN edited_at timestamptz,
  ADD COLUMN deleted_at timestamptz;

-- One row per user per emoji per message.
CREATE TABLE chat_message_reactions (
  message_id uuid NOT NULL REFERENCES chat_messages(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  emoji text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (message_id, user_id, emoji)
);

-- The last message a member has read, as its keyset position (created_at, id) in the room, so
-- "never moves backwards" and "unread after it" are one row comparison on chat_messages_room_idx.
ALTER TABLE chat_room_members
  ADD COLUMN last_read_message_id uuid,
  ADD COLUMN last_read_message_at timestamptz,
  ADD COLUMN read_at timestamptz;

-- Written when a user's last /chat socket goes (or their node stops heartbeating).
CREATE TABLE user_presence (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  last_seen_at timestamptz NOT NULL
);
