// Page numbers and the `total` of /all and /completed (answered by the listing index), over the
// real server: walking pages 1..N in every sort order gives exactly the one-page listing, cut
// into pages, also after items are created, published, edited, reacted to and deleted; `total` is
// exact for a narrow listing and a plausible figure, never below the rows seen, for a broad one.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';
import { CONTENT, createContent, fullBody, markCompleted } from './fixtures.js';
import { seedContent } from '../../bench/seed-content.js';

const booted = useTestServer();
/** More items than this make a broad listing (the seeded catalogue below is larger). */
const BROAD = 1_000;
let server: TestServer;
let owner: TestUser;
let other: TestUser;
let fans: TestUser[];
let anonymous: ApiClient;
/** A tag unique to this run: searching it lists only this file's items. */
const tag = `#p${randomBytes(4).toString('hex')}`;
/** Every published item of this file, with its uploader. */
const published: { id: string; by: TestUser }[] = [];

interface Item {
  id: string;
}
interface Page {
  ids: string[];
  hasMore: boolean;
  total: number;
}

/** Publishes the way the media worker does: its end state, then its event. */
async function finishVideo(id: string, uploader: TestUser, createdAt?: string): Promise<void> {
  await markCompleted(server, id, { createdAt });
  server.service.app.events.publish('video.completed', {
    uploaderId: uploader.userId,
    contentId: id,
    video: {
      original_name: 'tour.mp4',
      size: 1,
      resolution: '1080x1920',
      duration: 31.5,
      status: 'completed',
      thumbnail_url: null,
      content_url: null,
      url: null,
    },
  });
}

async function publishItem(by: TestUser, price: number, area: number, createdAt?: string, lat = 10.73, long = 106.72): Promise<string> {
  const id = await createContent(by, fullBody({ hash_tags: [tag], price, area, geo: { lat, long } }));
  await finishVideo(id, by, createdAt);
  published.push({ id, by });
  return id;
}

beforeAll(async () => {
  server = booted.current;
  anonymous = new ApiClient(server.url);
  [owner, other, ...fans] = await Promise.all(Array.from({ length: 6 }, () => registerAndLogin(server)));
  // Ties on every sort column (three items share a creation time, several a price or an area),
  // prices and areas whose ratio is no short decimal, and creation times with microseconds (the
  // ones left to the database clock).
  const prices = [1_000_000_000, 1_000_000_000, 2_500_000_000, 123_456_789.123, 987_654_321.987, 1_000_000_000, 3_333_333_333.33, 77_777_777.7];
  const areas = [33.3, 70, 70, 12.7, 101.1, 45.45, 70, 88.8];
  for (let i = 0; i < 19; i++) {
    const createdAt = i < 3 ? '2024-02-02T02:02:02.000Z' : i % 4 === 0 ? undefined : `2024-0${1 + (i % 9)}-1${i % 10}T08:00:00.000Z`;
    await publishItem(i % 3 === 0 ? other : owner, prices[i % prices.length], areas[i % areas.length], createdAt);
  }
  // One of the owner's items is never published: only the owner sees it in /all.
  await createContent(owner, fullBody({ hash_tags: [tag], price: 1_000_000_000, area: 70 }));
  // Reactions: 3, 2, 2, 1 on four items (reaction_count ties too).
  for (const [index, count] of [
    [0, 3],
    [5, 2],
    [6, 2],
    [11, 1],
  ] as const) {
    for (const fan of fans.slice(0, count)) expect((await fan.api.post(`/api/v1/content/${published[index].id}/reactions`)).status).toBe(200);
  }
});

const readAll = (client: ApiClient, query: string, page: number): Promise<Page> =>
  client.get(`${CONTENT}/all?search=${encodeURIComponent(tag)}&${query}&page=${page}`).then((res) => {
    expect(res.status, res.text).toBe(200);
    return { ids: res.body.data.item.map((i: Item) => i.id), hasMore: res.body.data.hasMore, total: res.body.data.total };
  });

const readCompleted = (client: ApiClient, query: string, page: number): Promise<Page> =>
  client.get(`${CONTENT}/completed?search=${encodeURIComponent(tag)}&${query}&page=${page}`).then((res) => {
    expect(res.status, res.text).toBe(200);
    const d = res.body.data;
    expect(d.total_pages).toBe(Math.ceil(d.total / d.per_page));
    return { ids: d.items.map((i: Item) => i.id), hasMore: d.page < d.total_pages, total: d.total };
  });

type Reader = (client: ApiClient, query: string, page: number) => Promise<Page>;

/** Pages 1, 2, … in a row until the last, as a client walks them. */
async function walk(read: Reader, client: ApiClient, query: string): Promise<Page[]> {
  const pages: Page[] = [];
  for (let page = 1; page <= 50; page++) {
    const answer = await read(client, query, page);
    pages.push(answer);
    if (!answer.hasMore) return pages;
  }
  throw new Error('no last page');
}

/** Each page read on its own, last first (no page read before it). */
async function freshPages(read: Reader, client: ApiClient, query: string, count: number): Promise<Page[]> {
  const pages: Page[] = [];
  for (let page = count; page >= 1; page--) pages.unshift(await read(client, query, page));
  return pages;
}

const ALL_ORDERS = [
  'column=created_at&sort=desc',
  'column=created_at&sort=asc',
  'column=updated_at&sort=desc',
  'column=updated_at&sort=asc',
  'column=price&sort=asc',
  'column=price&sort=desc',
  'column=area&sort=asc',
  'column=price_per_area&sort=desc',
  'column=price_per_area&sort=asc',
  'column=reaction_count&sort=desc',
  'column=reaction_count&sort=asc',
];

/** Walks every order (per_page 4, and 3 for one) as `client` and compares with fresh reads and the one-page listing. */
async function expectWalksExact(client: ApiClient, expectedCount: number): Promise<void> {
  for (const order of [...ALL_ORDERS.map((o) => `${o}&per_page=4`), 'column=price&sort=asc&per_page=3']) {
    const walked = await walk(readAll, client, order);
    const fresh = await freshPages(readAll, client, order, walked.length + 1);
    expect(walked, order).toEqual(fresh.slice(0, walked.length));
    expect(fresh[walked.length], order).toEqual({ ids: [], hasMore: false, total: expectedCount });
    const whole = await readAll(client, order.replace(/per_page=\d+/, 'per_page=100'), 1);
    expect(
      walked.flatMap((p) => p.ids),
      order,
    ).toEqual(whole.ids);
    expect(whole.ids).toHaveLength(expectedCount);
    for (const page of walked) expect(page.total, order).toBe(expectedCount);
    // Walking again changes nothing.
    expect(await walk(readAll, client, order), order).toEqual(walked);
  }
}

async function expectCompletedWalksExact(query: string, expectedCount: number): Promise<void> {
  const walked = await walk(readCompleted, anonymous, query);
  const fresh = await freshPages(readCompleted, anonymous, query, walked.length);
  expect(walked, query).toEqual(fresh);
  const whole = await readCompleted(anonymous, `${query.replace(/per_page=\d+/, '')}&per_page=100`, 1);
  expect(
    walked.flatMap((p) => p.ids),
    query,
  ).toEqual(whole.ids);
  expect(whole.ids).toHaveLength(expectedCount);
  for (const page of walked) expect(page.total, query).toBe(expectedCount);
}

describe('page numbers', () => {
  it('should walk /all in every order exactly as pages read on their own, for everyone and for the owner', async () => {
    await expectWalksExact(anonymous, published.length);
    await expectWalksExact(owner.api, published.length + 1);
  });

  it('should walk /completed (search, and search with a viewport) exactly as pages read on their own', async () => {
    await expectCompletedWalksExact('per_page=4', published.length);
    await expectCompletedWalksExact('per_page=5&latitude=10.73&longitude=106.72&zoom_level=12', published.length);
  });

  it('should keep pages exact after an item is created and published', async () => {
    await walk(readAll, anonymous, 'column=created_at&sort=desc&per_page=4');
    await walk(readCompleted, anonymous, 'per_page=4');
    await publishItem(other, 1_500_000_000, 55.5);
    await expectWalksExact(anonymous, published.length);
    await expectCompletedWalksExact('per_page=4', published.length);
  });

  it('should keep pages exact after an edit moves an item', async () => {
    await walk(readAll, anonymous, 'column=price&sort=asc&per_page=4');
    const moved = published[7];
    const edit = await moved.by.api.put(`/api/v1/content/${moved.id}`, {
      price: 1,
      area: 1000,
      location: { latitude: 10.73, longitude: 106.72 },
      languages: { en: { projectName: 'Cheapest now', description: 'Moved to the front', address: 'District 7' } },
    });
    expect(edit.status, edit.text).toBe(200);
    await expectWalksExact(anonymous, published.length);
  });

  it('should keep the reaction order exact as reactions come and go', async () => {
    const order = 'column=reaction_count&sort=desc&per_page=4';
    await walk(readAll, anonymous, order);
    expect((await fans[3].api.post(`/api/v1/content/${published[15].id}/reactions`)).status).toBe(200);
    expect((await fans[2].api.post(`/api/v1/content/${published[15].id}/reactions`)).status).toBe(200);
    expect((await fans[0].api.delete(`/api/v1/content/${published[0].id}/reactions`)).status).toBe(200);
    await expectWalksExact(anonymous, published.length);
  });

  it('should keep pages exact after an item is deleted', async () => {
    await walk(readAll, anonymous, 'column=created_at&sort=desc&per_page=4');
    await walk(readCompleted, anonymous, 'per_page=4');
    const [gone] = published.splice(4, 1);
    expect((await gone.by.api.delete(`/api/v1/content/${gone.id}`)).status).toBe(200);
    await expectWalksExact(anonymous, published.length);
    await expectCompletedWalksExact('per_page=4', published.length);
  });
});

describe('total', () => {
  it('should be exact for a narrow listing on every page, however many pages', async () => {
    const pages = await walk(readAll, anonymous, 'per_page=2&unit_price=VND');
    expect(pages.length).toBeGreaterThan(5);
    for (const page of pages) expect(page.total).toBe(published.length);
  });

  it('should be plausible, never below the rows seen, for a broad listing', async () => {
    const viewer = await registerAndLogin(server);
    await seedContent(server.service.app.database.longRunning, 3_000, viewer.userId);
    // A bulk write behind the service, announced: every node forgets its pages and reads its index again.
    await server.service.services.readModel.listingsRewritten();
    const [{ n: live }] = await server.service.app.database.rows<{ n: number }>(
      sql`select count(*)::int as n from contents where deleted_at is null and status = 'completed'`,
    );
    expect(live).toBeGreaterThan(BROAD);
    const plausible = (total: number, seen: number) => {
      expect(total).toBeGreaterThan(BROAD);
      expect(total).toBeGreaterThanOrEqual(seen);
      expect(total).toBeGreaterThan(live / 2);
      expect(total).toBeLessThan(live * 2);
    };
    for (const page of [1, 2, 100]) {
      const res = await anonymous.get(`${CONTENT}/all?per_page=20&page=${page}`);
      expect(res.body.data.hasMore).toBe(true);
      plausible(res.body.data.total, page * 20 + 1);
      const completed = await anonymous.get(`${CONTENT}/completed?per_page=20&page=${page}`);
      plausible(completed.body.data.total, page * 20 + 1);
      expect(completed.body.data.total_pages).toBe(Math.ceil(completed.body.data.total / 20));
    }
    // A broad search with a short word.
    const search = await anonymous.get(`${CONTENT}/all?per_page=20&search=${encodeURIComponent('can ho')}`);
    expect(search.body.data.total).toBeGreaterThan(BROAD);
    expect(search.body.data.total).toBeLessThan(live * 2);
    // Past the end the total still holds, and a page beyond it is empty.
    const beyond = await anonymous.get(`${CONTENT}/all?per_page=100&page=1000`);
    expect(beyond.body.data).toMatchObject({ item: [], hasMore: false });
    expect(beyond.body.data.total).toBeGreaterThan(BROAD);
  }, 90_000); // seeding 3,000 items and loading them into the listing index take long on a busy machine
});
