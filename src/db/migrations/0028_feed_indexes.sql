-- The personal feed's bucket of fresh and popular items (src/content/listing-repository.ts,
-- feedBucketQuery; docs/content.md, "The feed's plans"): the published items with at least two
-- reactions, newest first. A page of the bucket walks it from the snapshot (or the cursor) down to
-- the start of the 7-day window and reads only items that may be popular, where the walk of
-- contents_completed_created_idx read every item of the window (1,700 at 100,000 items over a
-- year; all of them on a platform that publishes more). The predicate holds the query's constant
-- threshold (written into the statement, not bound, so the planner can match it): a threshold of
-- 2 or more is served. Items gain and lose their place as reaction_count crosses 2, which the
-- reaction_count index (migration 0013) already makes a non-HOT update.
CREATE INDEX contents_popular_created_idx ON contents (created_at DESC, id DESC)
  WHERE deleted_at IS NULL AND status = 'completed' AND moderation_status IS NULL AND NOT suspension_hold
    AND reaction_count >= 2;

-- The bucket of followed uploaders: each followed uploader's newest published items as (created_at,
-- id) keys, read from the index alone where the visibility map allows; the page's rows are read
-- after the keys are merged. contents_uploader_created_idx (every live item, migration 0002)
-- would need each row's status, moderation mark and hold from the table.
CREATE INDEX contents_published_uploader_created_idx ON contents (uploader_id, created_at DESC, id DESC)
  WHERE deleted_at IS NULL AND status = 'completed' AND moderation_status IS NULL AND NOT suspension_hold;
