-- Campaigns that deliver (CONTRACT §26): what each campaign has been shown and charged, the
-- blocks of impressions nodes hold, who was shown it (reach), and impressions per item and day.
-- When a user leaves (§22): their campaigns go with them (cascade, as before); as a viewer,
-- their reach rows are deleted (erasure step and cascade) while every total stays.

ALTER TABLE campaigns ADD COLUMN completion_reason text CHECK (completion_reason IN ('ended', 'budget_spent'));

-- One row per campaign that was ever offered to a viewer. `impressions` are served and recorded
-- (what is charged: spent = floor(impressions × cpm / 1000)); `held` are granted to nodes in open
-- leases and not yet recorded; impressions + held never exceed what the budget buys.
CREATE TABLE campaign_delivery (
  campaign_id uuid PRIMARY KEY REFERENCES campaigns(id) ON DELETE CASCADE,
  cpm bigint NOT NULL CHECK (cpm > 0),
  impressions bigint NOT NULL DEFAULT 0 CHECK (impressions >= 0),
  held bigint NOT NULL DEFAULT 0 CHECK (held >= 0),
  -- The campaign day (whole days since launch) `day_granted` counts impressions for (pacing).
  day_index integer NOT NULL DEFAULT 0,
  day_granted bigint NOT NULL DEFAULT 0,
  reach bigint NOT NULL DEFAULT 0,
  engagement bigint NOT NULL DEFAULT 0,
  refunded bigint NOT NULL DEFAULT 0,
  progress_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- A block of impressions one node may serve without asking again. Closed when the node records
-- it and gives back the rest, or by any node once it has expired (its node died).
CREATE TABLE campaign_leases (
  id uuid PRIMARY KEY,
  campaign_id uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
  node_id text NOT NULL,
  granted bigint NOT NULL CHECK (granted > 0),
  served bigint NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  closed_at timestamptz
);
CREATE INDEX campaign_leases_open_idx ON campaign_leases (expires_at) WHERE closed_at IS NULL;

-- Who was shown a campaign, first time: `viewer` is `u:<user id>` or `a:<hash of the address>`.
CREATE TABLE campaign_reach (
  campaign_id uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
  viewer text NOT NULL,
  user_id uuid REFERENCES users(id) ON DELETE CASCADE,
  first_seen_at timestamptz NOT NULL,
  PRIMARY KEY (campaign_id, viewer)
);
CREATE INDEX campaign_reach_user_idx ON campaign_reach (user_id) WHERE user_id IS NOT NULL;

-- Impressions per campaign, item and UTC day: what analytics shows per item and day. No viewer.
CREATE TABLE campaign_impressions_daily (
  campaign_id uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
  content_id uuid NOT NULL,
  day date NOT NULL,
  impressions bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (campaign_id, day)
);
CREATE INDEX campaign_impressions_daily_content_idx ON campaign_impressions_daily (content_id, day);
