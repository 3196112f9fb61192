// Campaign spending across nodes and restarts (CONTRACT §26): two nodes sharing PostgreSQL and
// Redis serve one campaign at once and no impression is charged twice nor beyond the budget; a
// node that stops and a new one that starts lose no charge. Server mode only (TEST_DATABASE_URL
// and TEST_REDIS_URL).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../service.js';
import { startTwoNodes, type TwoNodes } from '../helpers/nodes.js';
import { startNode } from '../helpers/server.js';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';
import { campaignUntil, CONTENT, at, promote, sponsoredOf, until } from './delivery-fixtures.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe.skipIf(!enabled)('campaign spending on two nodes', () => {
  let nodes: TwoNodes;
  beforeAll(async () => {
    nodes = await startTwoNodes();
  });
  afterAll(() => nodes?.close());

  /** One first page of /feeds on `node` for `viewer` browsing Đà Nẵng: 1 when it held the sponsored item. */
  const servedOn = async (node: RunningService, viewer: TestUser): Promise<number> => {
    const res = await new ApiClient(node.url, viewer.token).get(`${CONTENT}/feeds?per_page=10&${at('daNang')}`);
    expect(res.status, res.text).toBe(200);
    return sponsoredOf(res.body.data.items).length;
  };

  it('charges each impression once when both nodes serve the same campaign at once, never beyond the budget', async () => {
    const owner = await registerAndLogin(nodes.serverA);
    // 400 VND at 40,000 per 1,000 buys 10 impressions in its one day.
    const promoted = await promote(nodes.serverA, owner, { locationId: 'vn-da-nang', budget: 400, duration: 1 });
    const buys = Math.floor((400 * 1000) / promoted.cpm);
    const viewers = await Promise.all(Array.from({ length: 12 }, () => registerAndLogin(nodes.serverA)));
    // Every viewer asks both nodes at once, twice: 48 pages for 10 impressions.
    const answers = await Promise.all(
      viewers.flatMap((v) => [servedOn(nodes.nodeA, v), servedOn(nodes.nodeB, v), servedOn(nodes.nodeA, v), servedOn(nodes.nodeB, v)]),
    );
    const served = answers.reduce((a, b) => a + b, 0);
    expect(served).toBe(buys);
    const c = await campaignUntil(owner, promoted.campaignId, (x) => x.status === 'completed');
    const spent = Math.floor((buys * promoted.cpm) / 1000);
    expect(c).toMatchObject({ completion_reason: 'budget_spent' });
    expect(c.delivery).toMatchObject({ impressions: buys, spent, refunded: 400 - spent, remaining: 0 });
    expect(c.delivery.reach).toBeLessThanOrEqual(viewers.length);
  });

  it('loses no charge and charges nothing twice when a node stops and another starts', async () => {
    const owner = await registerAndLogin(nodes.serverA);
    const promoted = await promote(nodes.serverA, owner, { locationId: 'vn-da-nang' });
    const viewers = await Promise.all(Array.from({ length: 4 }, () => registerAndLogin(nodes.serverA)));
    // Node B reads its roster once a second: it knows the campaign (made on A) within one.
    let served = await until(
      () => servedOn(nodes.nodeB, viewers[0]),
      (n) => n === 1,
    );
    for (const v of viewers.slice(1)) served += await servedOn(nodes.nodeB, v);
    expect(served).toBe(4);
    // Node B stops gracefully: what it served is recorded, its block given back.
    await nodes.nodeB.close();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-node-c-'));
    const nodeC = await startNode({ ...nodes.env, DATA_DIR: dataDir });
    try {
      for (const v of viewers) served += await servedOn(nodeC, v);
      for (const v of viewers) served += await servedOn(nodes.nodeA, v);
      expect(served).toBe(12);
      const c = await campaignUntil(owner, promoted.campaignId, (x) => x.delivery.impressions >= 12);
      expect(c.delivery).toMatchObject({ impressions: 12, reach: 4, spent: Math.floor((12 * promoted.cpm) / 1000) });
    } finally {
      await nodeC.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
