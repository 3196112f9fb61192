-- Moderation foundation (CONTRACT §21): the append-only audit log of every moderation and role
-- action. The permissions moderate:content, assign:role, update:role and the role moderator are
-- seeded at start-up from src/authorization/catalogue.ts (the one source of roles and permissions).
--
-- No endpoint changes or deletes a row here; the service only appends (AuditLog, src/moderation).
--
-- When a user leaves (CONTRACT §22, docs/moderation.md): the rows stay. While the account row
-- exists, actor_id is kept as an opaque id (it leads to nothing personal once the account is
-- erased); if the users row itself is ever deleted, actor_id becomes null (ON DELETE SET NULL).
-- target_id is an opaque id, never a foreign key, so it outlives its target.
CREATE TABLE IF NOT EXISTS moderation_audit_log (
  id uuid PRIMARY KEY,
  actor_id uuid REFERENCES users(id) ON DELETE SET NULL,
  -- e.g. role.assign, role.update, report.resolve, user.restore (docs/moderation.md lists them).
  action text NOT NULL CHECK (char_length(action) BETWEEN 1 AND 64),
  -- user, role, content, comment, message.
  target_type text NOT NULL CHECK (char_length(target_type) BETWEEN 1 AND 32),
  target_id text NOT NULL CHECK (char_length(target_id) BETWEEN 1 AND 128),
  note text NOT NULL DEFAULT '' CHECK (char_length(note) <= 2000),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- Newest first, overall and per actor or target (GET /api/v1/moderation/audit).
CREATE INDEX IF NOT EXISTS moderation_audit_log_time_idx ON moderation_audit_log (created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS moderation_audit_log_actor_idx ON moderation_audit_log (actor_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS moderation_audit_log_target_idx ON moderation_audit_log (target_id, created_at DESC, id DESC);
