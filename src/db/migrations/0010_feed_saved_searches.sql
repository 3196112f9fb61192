-- The live feed and saved searches (CONTRACT §15, §16): each item's comment count, kept on write;
-- a durable queue of newly published items for saved-search matching; the saved searches with
-- their filters in indexable form; and one row per (search, matching item).

-- comment_count counts every comment on the item, replies included. A trigger keeps it in the
-- transaction of each insert and delete, so no path that writes comments can forget it.
ALTER TABLE contents ADD COLUMN comment_count integer NOT NULL DEFAULT 0;
UPDATE contents c SET comment_count = counted.n
  FROM (SELECT content_id, count(*)::int AS n FROM comments GROUP BY content_id) AS counted
  WHERE counted.content_id = c.id;

CREATE FUNCTION contents_count_comment() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE contents SET comment_count = comment_count + 1 WHERE id = NEW.content_id;
  ELSE
    UPDATE contents SET comment_count = greatest(comment_count - 1, 0) WHERE id = OLD.content_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER comments_count_on_content AFTER INSERT OR DELETE ON comments
  FOR EACH ROW EXECUTE FUNCTION contents_count_comment();

-- Items whose video reached `completed` and that saved searches have not been matched against
-- yet: written by a trigger in the transaction that publishes the item (an outbox), taken and
-- deleted in the transaction that stores the matches. A node that dies between the two leaves
-- the row, and the sweep job matches it later.
CREATE TABLE saved_search_queue (
  content_id uuid PRIMARY KEY REFERENCES contents(id) ON DELETE CASCADE,
  queued_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION contents_queue_published() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = 'completed' AND OLD.status IS DISTINCT FROM 'completed' AND NEW.deleted_at IS NULL THEN
    INSERT INTO saved_search_queue (content_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER contents_queue_on_publish AFTER UPDATE OF status ON contents
  FOR EACH ROW EXECUTE FUNCTION contents_queue_published();

CREATE TABLE saved_searches (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  -- The filters as accepted (normalised), answered back as they are.
  filters jsonb NOT NULL,
  notify text NOT NULL CHECK (notify IN ('instant', 'daily', 'off')),
  -- The same filters in matchable form. `bounds` is a 4-D box (price, area, latitude, longitude)
  -- with open ends as ±1e300, so "which searches does this item fall in" is one GiST lookup of the
  -- item's point; the other filters are checked on the few searches it returns.
  bounds cube NOT NULL,
  unit_price text,
  unit_area text,
  amenities text[] NOT NULL DEFAULT '{}',
  apartment_types text[] NOT NULL DEFAULT '{}',
  project_statuses text[] NOT NULL DEFAULT '{}',
  search_terms text[] NOT NULL DEFAULT '{}',
  -- The viewport of `area` (west > east when it crosses the antimeridian); null without `area`.
  south double precision,
  north double precision,
  west double precision,
  east double precision,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX saved_searches_user_idx ON saved_searches (user_id, created_at DESC, id DESC);
CREATE INDEX saved_searches_bounds_idx ON saved_searches USING gist (bounds) WHERE notify <> 'off';

-- One row per (search, item) that matched: the unique key that makes a second matching run (the
-- sweep after the fast path, a retry) add nothing. notified_at is null while a daily search's
-- match waits for its digest.
CREATE TABLE saved_search_matches (
  saved_search_id uuid NOT NULL REFERENCES saved_searches(id) ON DELETE CASCADE,
  content_id uuid NOT NULL REFERENCES contents(id) ON DELETE CASCADE,
  matched_at timestamptz NOT NULL DEFAULT now(),
  notified_at timestamptz,
  PRIMARY KEY (saved_search_id, content_id)
);
CREATE INDEX saved_search_matches_digest_idx ON saved_search_matches (saved_search_id, matched_at) WHERE notified_at IS NULL;
