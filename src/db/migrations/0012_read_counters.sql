-- Counts kept on write for the read path (issue 10): each user's follower and following numbers,
-- so a profile reads two columns instead of counting follows rows; and the listing indexes the
-- plans of bench/listing-plans.ts at 100,000 items asked for (docs/content.md).

-- Follows are written by nobody else while the counts are backfilled and the trigger is put in
-- place (another node of a rolling deploy inserting meanwhile would be missed).
LOCK TABLE follows IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE users
  ADD COLUMN follower_count integer NOT NULL DEFAULT 0,
  ADD COLUMN following_count integer NOT NULL DEFAULT 0;
UPDATE users u SET follower_count = counted.n
  FROM (SELECT following_id AS id, count(*)::int AS n FROM follows GROUP BY following_id) AS counted
  WHERE counted.id = u.id;
UPDATE users u SET following_count = counted.n
  FROM (SELECT follower_id AS id, count(*)::int AS n FROM follows GROUP BY follower_id) AS counted
  WHERE counted.id = u.id;

-- Adds `delta` to one follow's two ends. The two users rows are updated in id order, whoever
-- follows whom: a follows b and b follows a at the same moment then lock the same row first, so
-- they queue instead of deadlocking.
CREATE FUNCTION users_count_follow(follower uuid, followed uuid, delta integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF follower < followed THEN
    UPDATE users SET following_count = greatest(following_count + delta, 0) WHERE id = follower;
    UPDATE users SET follower_count = greatest(follower_count + delta, 0) WHERE id = followed;
  ELSE
    UPDATE users SET follower_count = greatest(follower_count + delta, 0) WHERE id = followed;
    UPDATE users SET following_count = greatest(following_count + delta, 0) WHERE id = follower;
  END IF;
END $$;

-- In the transaction of every insert and delete of a follow, whatever path wrote it. A user's
-- deletion cascades to their follows: the other end's count goes down with each removed row, and
-- the update of the deleted user's own row finds nothing (it is already gone), which is right.
-- An update of a follow's ends (no path does one) counts as a delete and an insert.
CREATE FUNCTION follows_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    PERFORM users_count_follow(OLD.follower_id, OLD.following_id, -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM users_count_follow(NEW.follower_id, NEW.following_id, 1);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER follows_count_on_users AFTER INSERT OR DELETE OR UPDATE OF follower_id, following_id ON follows
  FOR EACH ROW EXECUTE FUNCTION follows_count();
