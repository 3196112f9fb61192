// The read caches never lie across nodes: each change is made on node A and the very next read
// on node B (another process on the same PostgreSQL and Redis) and then on node A shows it. The
// scenarios are in scenarios.ts. Runs only when TEST_DATABASE_URL and TEST_REDIS_URL are set
// (the server pass).
import { describe } from 'vitest';
import { useTwoNodes } from './cluster.js';
import { describeCacheTruth } from './scenarios.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe.skipIf(!enabled)('cache truth on two nodes', () => {
  describeCacheTruth(useTwoNodes());
});
