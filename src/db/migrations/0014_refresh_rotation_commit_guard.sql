-- Refresh tokens rotate (CONTRACT §19): each refresh hands out the session's next token. A token
-- is `<n>.<signature>`, the session's n-th, signed for that session (src/auth/tokens.ts); the row
-- keeps the number of the current one, so a token with a smaller number is one already used, and
-- presenting it ends the session. The column goes with its session row (and so with its user).
-- Sessions opened before this migration hold a token without a number: it counts as number 0.
ALTER TABLE sessions ADD COLUMN refresh_generation integer NOT NULL DEFAULT 0;

-- Server mode sends each COMMIT in one message after `select commit_before(<deadline>)`
-- (src/db/server.ts): a COMMIT that reaches the server after the node stopped waiting for it (held
-- up in the network, delivered when the link returned) raises here instead of committing, so a
-- write the node answered 503 never commits afterwards. No data: nothing to do when a user leaves.
CREATE OR REPLACE FUNCTION commit_before(deadline timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF clock_timestamp() > deadline THEN
    RAISE EXCEPTION 'the client stopped waiting for this commit at %', deadline USING ERRCODE = '57014';
  END IF;
END
$$;
