-- Views, watch time and leads (CONTRACT §26; docs/analytics.md). Playback reports are never stored
-- one by one: each node aggregates them in memory and its flush adds the sums here, in one
-- statement per batch.

-- The count every listing and the detail show; the flush adds to it (HOT: not indexed).
ALTER TABLE contents ADD COLUMN view_count integer NOT NULL DEFAULT 0;

-- The roll-up per item and UTC day that analytics and /stats/by-day read. Totals outlive the
-- viewers that made them: an account's erasure leaves these numbers as they are.
-- r10..r100: views whose playback reached 10 % … 100 % of the video (retention);
-- s_*: views by source; impressions: added by campaign delivery (recordImpressions).
CREATE TABLE content_view_days (
  content_id uuid NOT NULL REFERENCES contents(id) ON DELETE CASCADE,
  day date NOT NULL,
  views integer NOT NULL DEFAULT 0,
  unique_viewers integer NOT NULL DEFAULT 0,
  watch_ms bigint NOT NULL DEFAULT 0,
  impressions integer NOT NULL DEFAULT 0,
  leads integer NOT NULL DEFAULT 0,
  r10 integer NOT NULL DEFAULT 0, r20 integer NOT NULL DEFAULT 0, r30 integer NOT NULL DEFAULT 0,
  r40 integer NOT NULL DEFAULT 0, r50 integer NOT NULL DEFAULT 0, r60 integer NOT NULL DEFAULT 0,
  r70 integer NOT NULL DEFAULT 0, r80 integer NOT NULL DEFAULT 0, r90 integer NOT NULL DEFAULT 0,
  r100 integer NOT NULL DEFAULT 0,
  s_feed integer NOT NULL DEFAULT 0, s_search integer NOT NULL DEFAULT 0, s_map integer NOT NULL DEFAULT 0,
  s_profile integer NOT NULL DEFAULT 0, s_campaign integer NOT NULL DEFAULT 0, s_link integer NOT NULL DEFAULT 0,
  s_live integer NOT NULL DEFAULT 0,
  PRIMARY KEY (content_id, day)
);

-- Exact distinct viewers of an item per day: a row per viewer who made a view that day. The
-- viewer key is `u:<user id>` or `a:<hash of the address>`; an erased account's rows are deleted
-- (the day's unique_viewers stays).
CREATE TABLE content_view_viewers (
  content_id uuid NOT NULL REFERENCES contents(id) ON DELETE CASCADE,
  day date NOT NULL,
  viewer_key text NOT NULL,
  PRIMARY KEY (content_id, day, viewer_key)
);
CREATE INDEX content_view_viewers_viewer_idx ON content_view_viewers (viewer_key);
CREATE INDEX content_view_viewers_day_idx ON content_view_viewers (day);

-- What views a campaign's item got from playbacks the campaign brought (source `campaign` with
-- its id), for campaign delivery (campaignViewFigures).
CREATE TABLE campaign_view_totals (
  campaign_id uuid PRIMARY KEY REFERENCES campaigns(id) ON DELETE CASCADE,
  views integer NOT NULL DEFAULT 0,
  watch_ms bigint NOT NULL DEFAULT 0,
  reach integer NOT NULL DEFAULT 0,
  leads integer NOT NULL DEFAULT 0
);

-- Distinct viewers a campaign's playbacks reached (reach), same viewer keys as above.
CREATE TABLE campaign_viewers (
  campaign_id uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
  viewer_key text NOT NULL,
  PRIMARY KEY (campaign_id, viewer_key)
);
CREATE INDEX campaign_viewers_viewer_idx ON campaign_viewers (viewer_key);

-- Leads (CONTRACT §26): a chat room opened on an item by someone other than its owner, once per
-- viewer and item. The viewer's erasure deletes the row (the day's count stays).
ALTER TABLE chat_rooms ADD COLUMN content_id uuid REFERENCES contents(id) ON DELETE SET NULL;
CREATE TABLE content_leads (
  content_id uuid NOT NULL REFERENCES contents(id) ON DELETE CASCADE,
  viewer_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  room_id uuid NOT NULL REFERENCES chat_rooms(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  notified_at timestamptz,
  PRIMARY KEY (content_id, viewer_id)
);
CREATE INDEX content_leads_room_idx ON content_leads (room_id);
CREATE INDEX content_leads_viewer_idx ON content_leads (viewer_id);
