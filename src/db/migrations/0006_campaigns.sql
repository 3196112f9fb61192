-- Promotion campaigns: estimations, campaigns, payments, the balance ledger and idempotency
-- records. Money is bigint VND (VND has no minor unit). `video_id` carries no foreign key to
-- contents: a campaign and its payment history outlive the post it promoted (soft delete), and
-- the campaign keeps the figures it was sold with.

CREATE TABLE campaign_estimations (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  video_id uuid NOT NULL,
  budget_amount bigint NOT NULL CHECK (budget_amount > 0),
  currency text NOT NULL,
  duration_days integer NOT NULL,
  targeting jsonb NOT NULL,
  result jsonb NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX campaign_estimations_user_idx ON campaign_estimations (user_id, created_at DESC);

CREATE TABLE campaigns (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  video_id uuid NOT NULL,
  estimation_id uuid REFERENCES campaign_estimations(id) ON DELETE SET NULL,
  name text NOT NULL,
  source text NOT NULL CHECK (source IN ('create', 'boost')),
  boost_type text,
  status text NOT NULL CHECK (status IN ('active', 'paused', 'completed')),
  budget_amount bigint NOT NULL CHECK (budget_amount > 0),
  platform_fee bigint NOT NULL CHECK (platform_fee >= 0),
  currency text NOT NULL,
  duration_days integer NOT NULL,
  targeting jsonb NOT NULL,
  estimate jsonb,
  launch_time timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  paused_at timestamptz,
  completed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX campaigns_user_idx ON campaigns (user_id, created_at DESC);
-- The completion job scans only the campaigns still running.
CREATE INDEX campaigns_due_idx ON campaigns (ends_at) WHERE status IN ('active', 'paused');
CREATE UNIQUE INDEX campaigns_estimation_key ON campaigns (estimation_id) WHERE estimation_id IS NOT NULL;

-- Every charge the service made (provider charges and balance debits alike).
CREATE TABLE payments (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  campaign_id uuid REFERENCES campaigns(id) ON DELETE SET NULL,
  purpose text NOT NULL CHECK (purpose IN ('campaign_create', 'campaign_budget', 'boost', 'top_up')),
  method text NOT NULL CHECK (method IN ('card', 'paypal', 'balance', 'crypto')),
  amount bigint NOT NULL CHECK (amount > 0),
  budget_amount bigint NOT NULL DEFAULT 0,
  platform_fee bigint NOT NULL DEFAULT 0,
  currency text NOT NULL,
  status text NOT NULL CHECK (status IN ('completed', 'pending', 'failed', 'refunded')),
  provider text NOT NULL,
  provider_reference text,
  receipt_id text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payments_user_idx ON payments (user_id, created_at DESC);
CREATE INDEX payments_campaign_idx ON payments (campaign_id);

-- The balance is the sum of these rows: one row per movement, never updated.
CREATE TABLE balance_ledger (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('top_up', 'campaign_charge', 'refund', 'adjustment')),
  amount bigint NOT NULL CHECK (amount <> 0),
  currency text NOT NULL,
  status text NOT NULL DEFAULT 'completed' CHECK (status IN ('completed', 'pending')),
  payment_id uuid REFERENCES payments(id) ON DELETE SET NULL,
  campaign_id uuid REFERENCES campaigns(id) ON DELETE SET NULL,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX balance_ledger_user_idx ON balance_ledger (user_id, created_at);

-- One row per (user, Idempotency-Key): the request's hash and the answer first given.
CREATE TABLE idempotency_keys (
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key text NOT NULL,
  scope text NOT NULL,
  request_hash text NOT NULL,
  response_status integer,
  response_body jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, key)
);
