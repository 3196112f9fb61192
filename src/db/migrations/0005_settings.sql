-- Settings, two-factor credentials, daily statistics roll-up and scheduler bookkeeping.

-- Only the settings a user changed, keyed by dotted path ("privacy.session_timeout" → 30); the
-- defaults live in code, so adding a setting needs no data migration, and a partial update is
-- one atomic `overrides || patch`.
CREATE TABLE user_settings (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  overrides jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row while two-factor is on. The TOTP secret is AES-256-GCM encrypted; last_used_step
-- refuses a replayed TOTP code; failed_attempts/locked_until lock guessing after 5 wrong codes.
CREATE TABLE two_factor_credentials (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  secret_encrypted text NOT NULL,
  last_used_step bigint NOT NULL DEFAULT 0,
  failed_attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Single-use backup codes, kept as keyed hashes (HMAC-SHA256).
CREATE TABLE two_factor_backup_codes (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash text NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, code_hash)
);

-- Per-user, per-UTC-day counters for finished days (the stats-rollup job writes them; today is
-- always computed live). A day without a row had no activity.
CREATE TABLE daily_stats (
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  day date NOT NULL,
  posts integer NOT NULL DEFAULT 0,
  followers integer NOT NULL DEFAULT 0,
  following integer NOT NULL DEFAULT 0,
  reactions integer NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, day)
);

-- The last day the roll-up covers (one row). Days after it are computed live.
CREATE TABLE daily_stats_watermark (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  rolled_through date NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Each scheduled job's last run, so a tick missed while no node was running is caught up.
CREATE TABLE scheduled_job_runs (
  job_name text PRIMARY KEY,
  last_started_at timestamptz,
  last_success_at timestamptz,
  last_failure_at timestamptz,
  last_error text,
  runs integer NOT NULL DEFAULT 0
);
