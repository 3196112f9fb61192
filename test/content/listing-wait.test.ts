// Listings wait for the listing index (docs/search.md, "One engine"): a node whose index has not
// loaded answers no listing from PostgreSQL. `/readyz` is 503 until the index has loaded; a
// listing waits for the load (bounded) and then answers from the index, or, when the load does
// not come in time, 503 `service.error.unavailable` with Retry-After. The load is held back with
// a test seam (ServiceSeams.listingLoad) and the wait shortened (listingWaitMs): without them a
// node loads its index before a test could ask.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin } from '../helpers/api.js';
import { CONTENT, fullBody, publish } from './fixtures.js';

describe('a node whose listing index has not loaded', () => {
  let server: TestServer;
  let release: () => void;

  beforeAll(async () => {
    const held = new Promise<void>((resolve) => (release = resolve));
    server = await bootServer({}, { listingLoad: held, listingWaitMs: 2_000 });
  }, 60_000);
  afterAll(async () => {
    release?.();
    await server?.close();
  });

  it('should be not ready and answer listings only once the index has loaded', async () => {
    const owner = await registerAndLogin(server);
    const id = await publish(server, owner, fullBody({ hash_tags: ['#waitforindex'] }));
    const anonymous = new ApiClient(server.url);

    const notReady = expectErrorEnvelope(await anonymous.get('/readyz'), 503, 'service.error.not_ready');
    expect(notReady.details).toEqual({ field: 'listing_index', constraint: 'loaded' });
    expect(server.service.services.listingIndex.ready()).toBe(false);

    // Nothing loads within the wait: 503, not an answer read elsewhere.
    for (const path of ['/all?search=waitforindex', '/completed', '/completed/clusters?min_lat=0&max_lat=30&min_lng=100&max_lng=130&zoom=3']) {
      const refused = await anonymous.get(`${CONTENT}${path}`);
      expectErrorEnvelope(refused, 503, 'service.error.unavailable');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }

    // A listing asked while the index loads waits for it, then answers from it.
    const waiting = owner.api.get(`${CONTENT}/all?search=waitforindex`);
    release();
    const answered = await waiting;
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body.data.item.map((i: { id: string }) => i.id)).toEqual([id]);
    expect(server.service.services.listingIndex.ready()).toBe(true);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  }, 60_000);
});
