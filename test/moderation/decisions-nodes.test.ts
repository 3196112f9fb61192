// Decisions hold on every node from its next request (CONTRACT §21, §14): a suspension made on
// node A refuses the user's token and login on node B, and a removal or a hold made through A is
// seen by B's next read although B had the item and its listing pages in its caches. Node B is its
// own process on the same PostgreSQL and Redis. Server mode only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, expectErrorEnvelope, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import { createContent as createPublished } from '../sns/fixtures.js';
import { CONTENT } from '../content/fixtures.js';
import { on, useTwoNodes, type Cluster, type NodeRef } from '../read-model/cluster.js';
import { closeAll, connect, disconnected } from '../realtime/socket-client.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe.skipIf(!enabled)('moderation decisions on two nodes', () => {
  const cluster = useTwoNodes();
  let c: Cluster;
  let nodeB: NodeRef;
  let moderator: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    c = cluster();
    nodeB = c.readers[0];
    moderator = await loginAdmin(c.primary);
    viewer = await registerAndLogin(c.primary);
  });
  afterAll(() => closeAll());

  const listed = async (client: ApiClient, id: string) => {
    const res = await client.get(`${CONTENT}/all?per_page=100`);
    expect(res.status).toBe(200);
    return res.body.data.item.some((i: { id: string }) => i.id === id);
  };

  it('a suspension on node A refuses the user on node B at its next request; a restore on A lets them in on B', async () => {
    const user = await registerAndLogin(c.primary);
    const contentId = await createPublished(c.primary, user);
    // Node B has checked the session and listed the item: both are in its caches now.
    expect((await on(nodeB, user).get('/auth/api/v1/user/me')).status).toBe(200);
    expect(await listed(on(nodeB, null), contentId)).toBe(true);
    expect((await on(nodeB, viewer).get(`/api/v1/content/${contentId}`)).status).toBe(200);

    // A socket of the user's on node B is dropped by the suspension made on node A.
    const socket = await connect(nodeB.url, '/notifications', user.token, 'websocket');
    const gone = disconnected(socket);

    const res = await moderator.api.post(`/api/v1/moderation/targets/user/${user.userId}/resolve`, { action: 'suspend_user' });
    expect(res.status).toBe(200);
    expect(await gone).toBe('io server disconnect');

    expectErrorEnvelope(await on(nodeB, user).get('/auth/api/v1/user/me'), 401);
    expectErrorEnvelope(
      await new ApiClient(nodeB.url).post('/auth/api/v1/login', { phone_number: user.phone, password: user.password }),
      403,
      'auth.error.account_suspended',
    );
    expect(await listed(on(nodeB, null), contentId)).toBe(false);
    expectErrorEnvelope(await on(nodeB, viewer).get(`/api/v1/content/${contentId}`), 404);

    expect((await moderator.api.post(`/api/v1/moderation/users/${user.userId}/restore`)).status).toBe(200);
    expect((await new ApiClient(nodeB.url).post('/auth/api/v1/login', { phone_number: user.phone, password: user.password })).status).toBe(200);
    expect(await listed(on(nodeB, null), contentId)).toBe(true);
  });

  it("a removal on node A is 404 on node B at its next read, and the item leaves B's listings", async () => {
    const owner = await registerAndLogin(c.primary);
    const contentId = await createPublished(c.primary, owner);
    expect((await on(nodeB, viewer).get(`/api/v1/content/${contentId}`)).status).toBe(200);
    expect(await listed(on(nodeB, null), contentId)).toBe(true);

    const res = await moderator.api.post(`/api/v1/moderation/targets/content/${contentId}/resolve`, { action: 'remove', note: 'fake listing' });
    expect(res.status).toBe(200);

    expectErrorEnvelope(await on(nodeB, viewer).get(`/api/v1/content/${contentId}`), 404);
    expect(await listed(on(nodeB, null), contentId)).toBe(false);
    const own = await on(nodeB, owner).get(`/api/v1/content/${contentId}`);
    expect(own.status).toBe(200);
    expect(own.body.data).toMatchObject({ status: 'removed', moderation_note: 'fake listing' });
  });
});
