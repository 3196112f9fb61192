// The listing index of another node (CONTRACT §23): a publish, an edit, a delete and a hold made
// on node A show in the very next search on node B (its own process, its own index, answering from it)
// and on A. Server mode only (two nodes on one PostgreSQL and one Redis).
import { beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { on, useTwoNodes, type Cluster } from '../read-model/cluster.js';
import { fullBody, publish } from './fixtures.js';
import { indexReady, searchFor } from './search.fixtures.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

/** Waits (bounded) until the node says (on /metrics, loopback) that it answers listings from its index. */
async function remoteIndexReady(url: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const res = await fetch(`${url}/metrics`);
    if (/^listing_index_ready 1$/m.test(await res.text())) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the listing index of ${url} never became ready`);
}

describe.skipIf(!enabled)('the listing index on two nodes', () => {
  const nodes = useTwoNodes();
  let cluster: Cluster;
  let owner: TestUser;
  const word = `w${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    cluster = nodes();
    owner = await registerAndLogin(cluster.primary);
    await indexReady(cluster.primary);
    await remoteIndexReady(cluster.readers[0].url);
  });

  it('should show a publish, an edit and a delete in the next search on the other node', async () => {
    const id = await publish(
      cluster.primary,
      owner,
      fullBody({ content_info: [{ lang: 'en', project_name: `Amberly ${word}`, description: 'x', address: 'y' }] }),
    );
    for (const node of cluster.readers) expect(await searchFor(on(node, null), `${word} amberly`), node.name).toEqual([id]);

    const edit = await owner.api.put(`/api/v1/content/${id}`, {
      price: 1_000_000,
      area: 40,
      location: { latitude: 10.8, longitude: 106.7 },
      languages: { en: { projectName: `Bluebell ${word}`, description: 'x', address: 'y' } },
    });
    expect(edit.status, edit.text).toBe(200);
    for (const node of cluster.readers) {
      expect(await searchFor(on(node, null), `${word} bluebell`), node.name).toEqual([id]);
      expect(await searchFor(on(node, null), `${word} amberly`), node.name).toEqual([]);
    }

    expect((await owner.api.delete(`/api/v1/content/${id}`)).status).toBe(200);
    for (const node of cluster.readers) expect(await searchFor(on(node, null), word), node.name).toEqual([]);
    await remoteIndexReady(cluster.readers[0].url); // still answering from its index
  });

  it('should drop an item held after reports (CONTRACT §21) from the next search on the other node', async () => {
    const id = await publish(
      cluster.primary,
      owner,
      fullBody({ content_info: [{ lang: 'en', project_name: `Cornflower ${word}`, description: 'x', address: 'y' }] }),
    );
    for (const node of cluster.readers) expect(await searchFor(on(node, null), `${word} cornflower`), node.name).toEqual([id]);
    // The default hold threshold: five reporters with verified phones.
    const reporters = await Promise.all(Array.from({ length: 5 }, () => registerAndLogin(cluster.primary)));
    for (const reporter of reporters) {
      const res = await reporter.api.post('/sns/api/v1/reports', { target_type: 'content', target_id: id, reason: 'scam' });
      expect(res.status, res.text).toBe(201);
    }
    for (const node of cluster.readers) expect(await searchFor(on(node, null), `${word} cornflower`), node.name).toEqual([]);
    await remoteIndexReady(cluster.readers[0].url);
  });
});
