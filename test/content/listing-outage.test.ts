// Listings while a node does not hear the others (docs/search.md, "While a node does not hear the
// others"): node A reaches Redis through a TCP proxy of the test's own that stops passing anything
// (node B the real Redis, same database). While A is cut off it goes on answering listings from
// its index (as they were at the last change it heard); once it hears again, it catches up, and a
// change made on B meanwhile shows in A's listings. Server mode only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asTestServer } from '../helpers/server.js';
import { startTwoNodes, type TwoNodes } from '../helpers/nodes.js';
import { ApiClient, registerAndLogin } from '../helpers/api.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { CONTENT, fullBody, publish } from './fixtures.js';
import { randomBytes } from 'node:crypto';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe.skipIf(!enabled)('listings on a node cut from Redis', () => {
  let proxy: TcpProxy;
  let nodes: TwoNodes | undefined;

  beforeAll(async () => {
    proxy = await TcpProxy.before(process.env.TEST_REDIS_URL!, 6379);
    nodes = await startTwoNodes({ SCHEDULER_ENABLED: 'false', VIDEO_WORKERS: '0' }, (env) => ({ ...env, REDIS_URL: proxy.through(env.REDIS_URL) }));
  }, 60_000);

  afterAll(async () => {
    proxy?.resume();
    await nodes?.close();
    await proxy?.close();
  });

  /** The ids node A lists for a search, polled until `expected` (bounded: the catch-up runs in the background). */
  async function listedOnA(search: string, expected: string[]): Promise<string[]> {
    let ids: string[] = [];
    for (let i = 0; i < 300; i++) {
      const res = await new ApiClient(nodes!.nodeA.url).get(`${CONTENT}/all?search=${search}`);
      expect(res.status, res.text).toBe(200);
      ids = res.body.data.item.map((item: { id: string }) => item.id);
      if (JSON.stringify(ids) === JSON.stringify(expected)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return ids;
  }

  it('should go on answering while cut off, and show what changed meanwhile once it hears again', async () => {
    const { nodeA, nodeB } = nodes!;
    const before = `amaryllis${randomBytes(3).toString('hex')}`;
    const after = `begonia${randomBytes(3).toString('hex')}`;
    const owner = await registerAndLogin(asTestServer(nodeB));
    const id = await publish(
      asTestServer(nodeB),
      owner,
      fullBody({ content_info: [{ lang: 'en', project_name: `${before} tower`, description: 'x', address: 'x' }] }),
    );
    expect(await listedOnA(before, [id])).toEqual([id]);

    proxy.hold();
    const edit = await owner.api.put(`/api/v1/content/${id}`, {
      price: 1_000_000_000,
      area: 80,
      location: { latitude: 10.8, longitude: 106.7 },
      languages: { en: { projectName: `${after} tower`, description: 'x', address: 'x' } },
    });
    expect(edit.status, edit.text).toBe(200);
    // Cut off, A answers from its index all the same (the change may not have reached it).
    const meanwhile = await new ApiClient(nodeA.url).get(`${CONTENT}/all?search=${before}`);
    expect(meanwhile.status, meanwhile.text).toBe(200);

    proxy.resume();
    expect(await listedOnA(after, [id])).toEqual([id]);
    expect(await listedOnA(before, [])).toEqual([]);
  }, 90_000);
});
