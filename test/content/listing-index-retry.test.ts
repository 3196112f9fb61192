// A full reload of the listing index that fails (here a statement that waits past the request
// timeout on a locked table, as under heavy load) is tried again with backoff, not only after the
// next change of everything: the copy loaded before answers meanwhile, and the new one is swapped
// in once a load succeeds. Server mode: the lock is taken through a second connection.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { registerAndLogin } from '../helpers/api.js';
import { CONTENT, fullBody, publish } from './fixtures.js';
import { indexReady } from './search.fixtures.js';

describe.skipIf(!process.env.TEST_DATABASE_URL)('a listing index whose load failed', () => {
  const booted = useTestServer();

  it('should answer from the loaded copy, and load again by itself once the database answers', async () => {
    const server = booted.current;
    const owner = await registerAndLogin(server);
    const id = await publish(server, owner, fullBody({ hash_tags: ['#retryload'] }));
    await indexReady(server);
    const index = server.service.services.listingIndex;

    const locker = new pg.Client({ connectionString: server.env.DATABASE_URL });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table contents in access exclusive mode');
      const loads = index.loads();
      // The load's first page waits on the lock past the request timeout and fails.
      await index.reloadAll();
      expect(index.loads()).toBe(loads);
      // The copy loaded before still answers.
      const meanwhile = await owner.api.get(`${CONTENT}/all?search=retryload`);
      expect(meanwhile.status, meanwhile.text).toBe(200);
      expect(meanwhile.body.data.item.map((i: { id: string }) => i.id)).toEqual([id]);
      await locker.query('commit');
      // Tried again by itself.
      for (let i = 0; i < 600 && index.loads() === loads; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(index.loads()).toBe(loads + 1);
    } finally {
      await locker.end();
    }

    const res = await owner.api.get(`${CONTENT}/all?search=retryload`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.item.map((i: { id: string }) => i.id)).toEqual([id]);
  }, 120_000);
});
