// The read caches never lie, on one node (embedded or server mode): after a session ends, a role
// gains permissions, an item is edited, moved, deleted, reacted to, commented on or published, a
// user follows or unfollows, or an uploader renames themselves or changes their avatar, the very
// next read shows it, however often it was read before. The scenarios are in scenarios.ts.
import { describe } from 'vitest';
import { useOneNode } from './cluster.js';
import { describeCacheTruth } from './scenarios.js';

describe('cache truth on one node', () => {
  describeCacheTruth(useOneNode());
});
