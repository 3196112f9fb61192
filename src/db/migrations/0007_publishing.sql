-- Social publishing: linked TikTok / YouTube accounts, pending OAuth authorisations, and the
-- record of every publication. Tokens and PKCE verifiers are stored AES-256-GCM encrypted
-- (src/publishing/token-cipher.ts), never in plain text.
-- content_id carries no foreign key on purpose: contents rows are soft-deleted (never removed),
-- and this migration must not depend on another domain's table being present.

CREATE TABLE social_accounts (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  platform text NOT NULL CHECK (platform IN ('tiktok', 'youtube')),
  -- TikTok open_id; YouTube channel id when the platform tells it (null otherwise).
  external_id text,
  scope text NOT NULL DEFAULT '',
  access_token_enc text NOT NULL,
  refresh_token_enc text,
  access_expires_at timestamptz,
  refresh_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, platform)
);

CREATE TABLE social_oauth_states (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  platform text NOT NULL CHECK (platform IN ('tiktok', 'youtube')),
  code_verifier_enc text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX social_oauth_states_expires_idx ON social_oauth_states (expires_at);

CREATE TABLE social_publications (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  content_id uuid NOT NULL,
  platform text NOT NULL CHECK (platform IN ('tiktok', 'youtube')),
  -- TikTok publish_id or YouTube video id, once the platform has given one.
  remote_id text,
  -- 'uploading' while we send bytes; then the platform's own status word; 'failed' on error.
  status text NOT NULL,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX social_publications_user_idx ON social_publications (user_id, created_at DESC);
CREATE INDEX social_publications_content_idx ON social_publications (content_id);
