-- Leaving (CONTRACT §22): a deleted account keeps its users row, anonymised (payments and the
-- ledger point at it and stay for accounting); users.deleted_at marks it. The personal data is
-- erased by a durable job, one row per deleted account in account_erasures: each step (one per
-- kind of record) is idempotent and recorded in steps_done when it is through, so a job that
-- died halfway is taken up again after its lease and goes on from the first step not done.
ALTER TABLE users ADD COLUMN IF NOT EXISTS deleted_at timestamptz;
CREATE INDEX IF NOT EXISTS users_deleted_idx ON users (deleted_at) WHERE deleted_at IS NOT NULL;

-- A comment of a deleted account reads as deleted (its text is erased by the job).
ALTER TABLE comments ADD COLUMN IF NOT EXISTS deleted_at timestamptz;

CREATE TABLE account_erasures (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  requested_at timestamptz NOT NULL DEFAULT now(),
  -- The time the answer promised the erasure will have run by.
  due_by timestamptz NOT NULL,
  steps_done text[] NOT NULL DEFAULT '{}',
  attempts integer NOT NULL DEFAULT 0,
  -- A worker's claim: taken again by any node once claimed_until has passed.
  claimed_by text,
  claimed_until timestamptz,
  finished_at timestamptz,
  last_error text
);
CREATE INDEX account_erasures_open_idx ON account_erasures (requested_at) WHERE finished_at IS NULL;
