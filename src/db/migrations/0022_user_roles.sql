-- A user holds one or more roles (CONTRACT §21 "Roles"). user_roles is the set;
-- users.role stays, as the user's primary role (the highest of admin, moderator, broker,
-- end_user, else the first assigned), written in the same transaction as the set
-- (UserRepository, the one owner of both), so every reader of users.role keeps working.
-- Permissions are the union of what the user's active roles grant.
--
-- When a user leaves (CONTRACT §22): the rows go with the user row (ON DELETE CASCADE); an erased
-- account that keeps its row keeps its roles until an administrator replaces them.
CREATE TABLE IF NOT EXISTS user_roles (
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role_name text NOT NULL REFERENCES roles(name) ON UPDATE CASCADE,
  -- The order the roles were assigned in (0 first): "else the first" of the primary role.
  position smallint NOT NULL,
  PRIMARY KEY (user_id, role_name)
);
-- Who holds a role (the last-admin check counts the holders of admin).
CREATE INDEX IF NOT EXISTS user_roles_role_idx ON user_roles (role_name, user_id);

INSERT INTO user_roles (user_id, role_name, position)
SELECT id, role, 0 FROM users
ON CONFLICT DO NOTHING;
