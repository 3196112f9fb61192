// Saved searches (CONTRACT §16) over the real server: create/list/delete with bad input and other
// users' ids, the per-user cap, the matches pages (the same items as GET /all for the same
// filters), exactly one `saved_search.match` per matching item (fast path, sweep after a "crash",
// repeated runs), none for other or own items, and the daily digest by running its job.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type ApiResponse, type TestUser } from '../helpers/api.js';
import { runJobNow } from '../../jobs/scheduler.js';
import { savedSearchSweepJob } from '../../jobs/saved-search-matching.js';
import { savedSearchDigestJob } from '../../jobs/saved-search-digest.js';
import { CONTENT, createContent } from '../content/fixtures.js';
import { SAVED, listing, notificationsOf, publishLive, publishSilently, matched } from './fixtures.js';

const booted = useTestServer();
let server: TestServer;
let owner: TestUser;
let other: TestUser;
let uploader: TestUser;

const node = () => ({ app: server.service.app, services: server.service.services });
const create = (user: TestUser, body: unknown) => user.api.post(SAVED, body);
const validSearch = (filters: Record<string, unknown> = { search: 'riverside' }, notify = 'instant') => ({ name: 'Riverside flats', filters, notify });
const idsOf = (items: { id: string }[]) => items.map((i) => i.id);

beforeAll(async () => {
  server = booted.current;
  [owner, other, uploader] = await Promise.all([registerAndLogin(server), registerAndLogin(server), registerAndLogin(server)]);
});

describe('POST /content/api/v1/saved-searches', () => {
  it('should fail without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).post(SAVED, validSearch()), 401);
  });

  it('should fail with bad input', async () => {
    const bad: unknown[] = [
      {},
      { filters: { search: 'x' }, notify: 'instant' },
      { ...validSearch(), name: '   ' },
      { ...validSearch(), name: 'x'.repeat(101) },
      { ...validSearch(), notify: 'weekly' },
      { name: 'n', notify: 'instant' },
      validSearch({}),
      validSearch({ amenities: [] }),
      validSearch({ colour: 'blue' }),
      validSearch({ page: 2, search: 'x' }),
      validSearch({ price_from: 'cheap' }),
      validSearch({ price_from: -1 }),
      validSearch({ price_from: 10, price_to: 5 }),
      validSearch({ area_from: 100, area_to: 50 }),
      validSearch({ unit_price: 'XYZ' }),
      validSearch({ unit_area: 'acres' }),
      validSearch({ amenities: 42 }),
      validSearch({ search: 'x'.repeat(201) }),
      validSearch({ area: { latitude: 100, longitude: 0 } }),
      validSearch({ area: { latitude: 10 } }),
      { ...validSearch(), extra: true },
      'text',
    ];
    for (const body of bad) expectErrorEnvelope(await create(owner, body), 400, 'validation.error');
  });

  it('should create a search with its filters normalised as /all parses them', async () => {
    const res = await create(owner, {
      name: '  Pool flats in District 7 ',
      filters: {
        search: 'Căn hộ',
        price_from: '1000000000',
        price_to: 5e9,
        unit_price: 'vnd',
        unit_area: 'm²',
        amenities: 'pool, gym',
        apartment_type: ['Apartment'],
        area: { latitude: 10.73, longitude: 106.72, zoom_level: 13 },
      },
      notify: 'daily',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      name: 'Pool flats in District 7',
      filters: {
        search: 'Căn hộ',
        price_from: 1e9,
        price_to: 5e9,
        unit_price: 'VND',
        unit_area: 'm2',
        amenities: ['pool', 'gym'],
        apartment_type: ['Apartment'],
        area: { latitude: 10.73, longitude: 106.72, zoom_level: 13 },
      },
      notify: 'daily',
      created_at: expect.any(String),
    });
  });

  it('should refuse the 51st search of a user with 409', async () => {
    const collector = await registerAndLogin(server);
    for (let i = 0; i < 50; i++) expect((await create(collector, validSearch({ search: `term${i}` }))).status).toBe(201);
    expectErrorEnvelope(await create(collector, validSearch()), 409, 'saved_search.error.limit_reached');
    const list = await collector.api.get(SAVED);
    expect(list.body.data.items).toHaveLength(50);
    // Room again after a delete.
    expect((await collector.api.delete(`${SAVED}/${list.body.data.items[0].id}`)).status).toBe(200);
    expect((await create(collector, validSearch())).status).toBe(201);
  });
});

describe('GET and DELETE /content/api/v1/saved-searches', () => {
  it("should list only the caller's searches, newest first", async () => {
    const lister = await registerAndLogin(server);
    const first = (await create(lister, validSearch({ search: 'first' }))).body.data;
    const second = (await create(lister, validSearch({ search: 'second' }))).body.data;
    await create(other, validSearch({ search: 'not yours' }));
    const res = await lister.api.get(SAVED);
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual([second, first]);
    expectErrorEnvelope(await new ApiClient(server.url).get(SAVED), 401);
  });

  it("should answer 404 for another user's search and for a deleted one, 400 for a malformed id", async () => {
    const mine = (await create(owner, validSearch())).body.data;
    expectErrorEnvelope(await other.api.delete(`${SAVED}/${mine.id}`), 404, 'saved_search.error.not_found');
    expectErrorEnvelope(await other.api.get(`${SAVED}/${mine.id}/matches`), 404, 'saved_search.error.not_found');
    expectErrorEnvelope(await owner.api.delete(`${SAVED}/not-an-id`), 400);
    expectErrorEnvelope(await owner.api.delete(`${SAVED}/${randomUUID()}`), 404);
    expect((await owner.api.delete(`${SAVED}/${mine.id}`)).status).toBe(200);
    expectErrorEnvelope(await owner.api.delete(`${SAVED}/${mine.id}`), 404);
    expect(idsOf((await owner.api.get(SAVED)).body.data.items)).not.toContain(mine.id);
  });
});

describe('GET /content/api/v1/saved-searches/:id/matches', () => {
  let searchId: string;
  let matching: string[];

  beforeAll(async () => {
    // Five published Skyline items in Saigon within the price range, newest last; others that miss.
    matching = [];
    for (let i = 0; i < 5; i++) matching.push(await publishSilently(server, uploader, listing({ project_name: `Skyline Tower ${i}`, price: 2e9 + i })));
    await publishSilently(server, uploader, listing({ project_name: 'Skyline Tower expensive', price: 9e9 }));
    await publishSilently(server, uploader, listing({ project_name: 'Skyline Tower Hanoi', lat: 21.0285, long: 105.8542 }));
    await publishSilently(server, uploader, listing({ project_name: 'Skyline Tower no pool', amenities: ['gym'] }));
    await createContent(uploader, listing({ project_name: 'Skyline Tower draft' }));
    searchId = (
      await create(
        owner,
        validSearch({ search: 'skyline', price_to: 5e9, amenities: 'pool', area: { latitude: 10.73, longitude: 106.72, zoom_level: 12 } }, 'off'),
      )
    ).body.data.id;
  });

  it('should page the matching published items newest first, without repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: ApiResponse = await owner.api.get(`${SAVED}/${searchId}/matches?per_page=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...idsOf(res.body.data.items));
      cursor = res.body.data.next_cursor;
      expect(res.body.data.has_more).toBe(cursor !== null);
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual([...matching].reverse());
  });

  it('should list the items GET /all lists for the same filters', async () => {
    const all = await new ApiClient(server.url).get(`${CONTENT}/all?search=skyline&price_to=5000000000&amenities=pool&per_page=100`);
    // /all has no map area: the Hanoi item is the one difference.
    const inSaigon = idsOf(all.body.data.item).filter((id: string) => matching.includes(id));
    const res = await owner.api.get(`${SAVED}/${searchId}/matches?per_page=100`);
    expect(idsOf(res.body.data.items)).toEqual(inSaigon);
    expect(res.body.data.items[0]).toMatchObject({ reaction_count: 0, comment_count: 0, status: 'completed' });
  });

  it('should fail with a malformed cursor or page size', async () => {
    expectErrorEnvelope(await owner.api.get(`${SAVED}/${searchId}/matches?cursor=garbage!!`), 400, 'saved_search.error.invalid_cursor');
    expectErrorEnvelope(await owner.api.get(`${SAVED}/${searchId}/matches?cursor=e30`), 400, 'saved_search.error.invalid_cursor');
    expectErrorEnvelope(await owner.api.get(`${SAVED}/${searchId}/matches?per_page=0`), 400);
    expectErrorEnvelope(await owner.api.get(`${SAVED}/${searchId}/matches?per_page=1000`), 400);
  });
});

describe('saved_search.match notifications', () => {
  let hunter: TestUser;
  let instantId: string;

  beforeAll(async () => {
    hunter = await registerAndLogin(server);
    instantId = (await create(hunter, validSearch({ search: 'marina bay', price_to: 5e9 }))).body.data.id;
  });

  const forItem = (list: any[], contentId: string) => list.filter((n) => n.subject.id === contentId);

  it('should notify once for a matching item, even when matching runs again', async () => {
    const id = await publishLive(server, uploader, listing({ project_name: 'Marina Bay Residence', price: 4e9 }));
    await matched(server.service, [id]);
    expect(await runJobNow(node(), savedSearchSweepJob)).toBe('ran');
    expect(await server.service.services.savedSearchMatcher.matchPublished(id)).toBe(0);
    // Queued again (as if the publish were replayed): the (search, item) key lets nothing through twice.
    await server.service.app.database.rows(sql`insert into saved_search_queue (content_id) values (${id})`);
    await server.service.services.savedSearchMatcher.matchPublished(id);
    const told = forItem(await notificationsOf(hunter), id);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({
      type: 'saved_search.match',
      subject: { type: 'content', id },
      actor: { userId: uploader.userId },
      data: { saved_search_id: instantId, name: 'Riverside flats', contentId: id },
      read_at: null,
    });
  });

  it('should not notify for an item that does not match', async () => {
    const tooDear = await publishLive(server, uploader, listing({ project_name: 'Marina Bay Penthouse', price: 9e9 }));
    const elsewhere = await publishLive(server, uploader, listing({ project_name: 'Harbour Heights', price: 4e9 }));
    await matched(server.service, [tooDear, elsewhere]);
    const told = await notificationsOf(hunter);
    expect(forItem(told, tooDear)).toEqual([]);
    expect(forItem(told, elsewhere)).toEqual([]);
  });

  it("should not notify for the searcher's own item", async () => {
    const own = await publishLive(server, hunter, listing({ project_name: 'Marina Bay Loft', price: 3e9 }));
    await matched(server.service, [own]);
    expect(forItem(await notificationsOf(hunter), own)).toEqual([]);
    // It is still a match to list.
    const matches = await hunter.api.get(`${SAVED}/${instantId}/matches?per_page=100`);
    expect(idsOf(matches.body.data.items)).toContain(own);
  });

  it('should match an item whose publishing node died before matching, by the sweep, once', async () => {
    const id = await publishSilently(server, uploader, listing({ project_name: 'Marina Bay Garden', price: 2e9 }));
    expect(await runJobNow(node(), savedSearchSweepJob)).toBe('ran');
    expect(await runJobNow(node(), savedSearchSweepJob)).toBe('ran');
    expect(forItem(await notificationsOf(hunter), id)).toHaveLength(1);
  });

  it('should gather daily matches into one digest when the daily job runs', async () => {
    const planner = await registerAndLogin(server);
    const dailyId = (await create(planner, validSearch({ search: 'lotus lake' }, 'daily'))).body.data.id;
    const offId = (await create(planner, validSearch({ search: 'lotus lake' }, 'off'))).body.data.id;
    const first = await publishLive(server, uploader, listing({ project_name: 'Lotus Lake Villa' }));
    const second = await publishLive(server, uploader, listing({ project_name: 'Lotus Lake Studio' }));
    await matched(server.service, [first, second]);
    expect(await notificationsOf(planner)).toEqual([]);

    expect(await runJobNow(node(), savedSearchDigestJob)).toBe('ran');
    expect(await runJobNow(node(), savedSearchDigestJob)).toBe('ran');
    const digests = await notificationsOf(planner);
    expect(digests).toHaveLength(1);
    expect(digests[0]).toMatchObject({
      subject: { type: 'saved_search', id: dailyId },
      actor: null,
      data: { saved_search_id: dailyId, digest: true, count: 2 },
    });
    expect([...digests[0].data.content_ids].sort()).toEqual([first, second].sort());
    expect(JSON.stringify(digests)).not.toContain(offId);
  });
});
