// CONTRACT §26 across nodes (server mode: TEST_DATABASE_URL and TEST_REDIS_URL): one viewer's
// playbacks reaching two nodes count one view an hour, and one playback whose reports alternate
// between the nodes is capped and counted as on one node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';
import { startTwoNodes, type TwoNodes } from '../helpers/nodes.js';
import { closeAll, connect } from '../realtime/socket-client.js';
import { eventually, publishedVideo, report, sendReport } from './fixtures.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe.skipIf(!enabled)('views on two nodes sharing PostgreSQL and Redis', () => {
  let nodes: TwoNodes;
  let owner: TestUser;
  let viewer: TestUser;
  let onA: ApiClient;
  let onB: ApiClient;

  beforeAll(async () => {
    nodes = await startTwoNodes();
    owner = await registerAndLogin(nodes.serverA);
    viewer = await registerAndLogin(nodes.serverA);
    onA = new ApiClient(nodes.nodeA.url, viewer.token);
    onB = new ApiClient(nodes.nodeB.url, viewer.token);
  });
  afterAll(async () => {
    closeAll();
    await nodes?.close();
  });

  const viewCount = async (id: string) =>
    (await nodes.nodeA.app.database.rows<{ view_count: number }>(sql`select view_count from contents where id = ${id}`))[0].view_count;

  it('should count one viewer once an hour whichever node takes the reports', async () => {
    const id = await publishedVideo(nodes.serverA, owner, 10);
    const first = report();
    const second = report();
    // Two playbacks at once, one on each node, each reaching a view.
    await Promise.all([sendReport(onA, id, { ...first, watched: 2 }), sendReport(onB, id, { ...second, watched: 2 })]);
    const answers = await Promise.all([sendReport(onA, id, { ...first, watched: 2 }), sendReport(onB, id, { ...second, watched: 2 })]);
    expect(answers.map((a) => a.body.data.counted).sort()).toEqual([false, true]);
    await eventually(
      () => viewCount(id),
      (n) => n === 1,
    );
    await Promise.all([nodes.nodeA.services.views.flush(), nodes.nodeB.services.views.flush()]);
    expect(await viewCount(id)).toBe(1);
  });

  it('should cap one playback whose reports alternate between the nodes as on one node', async () => {
    const id = await publishedVideo(nodes.serverA, owner, 120);
    const r = report();
    // Each report claims 60 s with no time between them: 2 s each at most, wherever it lands.
    expect((await sendReport(onA, id, { ...r, watched: 60 })).body.data.counted).toBe(false);
    expect((await sendReport(onB, id, { ...r, watched: 60 })).body.data.counted).toBe(true);
    await eventually(
      () => viewCount(id),
      (n) => n === 1,
    );
    await Promise.all([nodes.nodeA.services.views.flush(), nodes.nodeB.services.views.flush()]);
    const [row] = await nodes.nodeA.app.database.rows<{ watch_ms: number }>(
      sql`select sum(watch_ms)::float8 as watch_ms from content_view_days where content_id = ${id}`,
    );
    // 2 s per report plus the moments between them: far from the 120 s claimed.
    expect(row.watch_ms).toBeGreaterThanOrEqual(4_000);
    expect(row.watch_ms).toBeLessThan(20_000);
  });

  it('should push views:update to a subscriber on the other node', async () => {
    const id = await publishedVideo(nodes.serverA, owner, 10);
    const watcher = await connect(nodes.nodeB.url, '/comments', owner.token, 'websocket');
    expect(await watcher.timeout(10_000).emitWithAck('content:subscribe', { contentId: id })).toEqual({ ok: true });
    const update = new Promise((resolve) => watcher.on('views:update', resolve));
    const r = report();
    await sendReport(onA, id, { ...r, watched: 2 });
    await sendReport(onA, id, { ...r, watched: 2 });
    expect(await update).toEqual({ contentId: id, view_count: 1 });
  });
});
