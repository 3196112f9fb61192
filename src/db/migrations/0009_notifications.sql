-- The notification inbox (CONTRACT §17) and Web Push (subscriptions and their delivery queue).

-- One row per notification a user can find in their inbox. Written in the transaction of the
-- change that causes it; `pushed_at` stays null until a node has claimed it for the socket push
-- (`notification:new`), so a row committed just before a crash is pushed later by the sweep.
CREATE TABLE notifications (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  type text NOT NULL,
  actor_id uuid REFERENCES users(id) ON DELETE SET NULL,
  subject_type text NOT NULL,
  subject_id text NOT NULL,
  data jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Set where a retry of the causing change could repeat the notification (a video job run
  -- twice, a campaign completed by two ticks): the second insert is a no-op.
  dedupe_key text,
  -- Set while a reaction group is open (one notification for several reactions on one item
  -- within an hour); cleared when the group's hour is over so a new group can start.
  group_key text,
  group_started_at timestamptz,
  read_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  pushed_at timestamptz
);

CREATE UNIQUE INDEX notifications_dedupe_idx ON notifications (user_id, dedupe_key) WHERE dedupe_key IS NOT NULL;
CREATE UNIQUE INDEX notifications_group_idx ON notifications (user_id, group_key) WHERE group_key IS NOT NULL;
CREATE INDEX notifications_inbox_idx ON notifications (user_id, created_at DESC, id DESC);
CREATE INDEX notifications_unread_idx ON notifications (user_id) WHERE read_at IS NULL;
CREATE INDEX notifications_unpushed_idx ON notifications (created_at) WHERE pushed_at IS NULL;

-- A browser's Web Push subscription (RFC 8030 endpoint + RFC 8291 keys), one row per endpoint.
CREATE TABLE push_subscriptions (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  endpoint text NOT NULL UNIQUE,
  p256dh text NOT NULL,
  auth text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX push_subscriptions_user_idx ON push_subscriptions (user_id);

-- The durable Web Push queue: one row per (notification, subscription). A worker claims due rows
-- (FOR UPDATE SKIP LOCKED, a lease in claimed_until), retries with backoff, and stamps done_at.
CREATE TABLE push_deliveries (
  id uuid PRIMARY KEY,
  notification_id uuid NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
  subscription_id uuid NOT NULL REFERENCES push_subscriptions(id) ON DELETE CASCADE,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  claimed_until timestamptz,
  done_at timestamptz,
  outcome text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (notification_id, subscription_id)
);

CREATE INDEX push_deliveries_due_idx ON push_deliveries (next_attempt_at) WHERE done_at IS NULL;

-- privacy.session_timeout: the idle sweep looks for live sessions not seen for a while.
CREATE INDEX sessions_idle_idx ON sessions (last_seen_at) WHERE revoked_at IS NULL;
-- Why a session ended: one ended for idleness answers auth.error.session_timed_out from then on,
-- whichever path (a request or the sweep) ended it.
ALTER TABLE sessions ADD COLUMN ended_idle boolean NOT NULL DEFAULT false;

-- privacy.login_notifications: "has this user signed in from this agent before?" at each login,
-- over ended sessions too (the existing user index covers live ones only).
CREATE INDEX sessions_user_agent_idx ON sessions (user_id, user_agent);
