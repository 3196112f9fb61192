-- Comments (with one level of replies) and their emoji reactions; chat rooms, members, messages.
-- created_at values are written by the service with millisecond precision, so the opaque
-- keyset cursors (created_at, id) round-trip exactly through JavaScript dates.

CREATE TABLE comments (
  id uuid PRIMARY KEY,
  content_id uuid NOT NULL REFERENCES contents(id) ON DELETE CASCADE,
  author_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- Always a top-level comment (replies to replies are stored under the top-level parent).
  parent_id uuid REFERENCES comments(id) ON DELETE CASCADE,
  msg text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comments_top_level_idx ON comments (content_id, created_at DESC, id DESC) WHERE parent_id IS NULL;
CREATE INDEX comments_replies_idx ON comments (parent_id, created_at, id) WHERE parent_id IS NOT NULL;

CREATE TABLE comment_reactions (
  comment_id uuid NOT NULL REFERENCES comments(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  emoji text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (comment_id, user_id)
);

CREATE TABLE chat_rooms (
  id uuid PRIMARY KEY,
  name text,
  -- Set for a two-person room created without a name: "<smaller user id>:<larger user id>",
  -- so asking again for a direct room with the same person returns the existing one.
  direct_key text UNIQUE,
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_message_at timestamptz
);

CREATE TABLE chat_room_members (
  room_id uuid NOT NULL REFERENCES chat_rooms(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  joined_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (room_id, user_id)
);
CREATE INDEX chat_room_members_user_idx ON chat_room_members (user_id);

CREATE TABLE chat_messages (
  id uuid PRIMARY KEY,
  room_id uuid NOT NULL REFERENCES chat_rooms(id) ON DELETE CASCADE,
  sender_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  msg text NOT NULL DEFAULT '',
  -- [{type, fileName, url, fileSize}]
  attachments jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_messages_room_idx ON chat_messages (room_id, created_at DESC, id DESC);
