// GET /content/api/v1/feeds over the real server: ranking (followed uploaders, then fresh popular
// items, then the rest), the abridged shape, and cursor pages that neither repeat nor skip items
// while new items, likes and follows arrive between pages.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { CONTENT, createContent, fullBody, publish, hoursAgo, insertFollow } from './fixtures.js';

const booted = useTestServer();
let server: TestServer;
let viewer: TestUser;
let followed: TestUser;
let stranger: TestUser;
let other: TestUser;
let fans: TestUser[];
const ids: Record<string, string> = {};
const ago = hoursAgo;

const follow = (follower: TestUser, following: TestUser) => insertFollow(server, follower, following);

beforeAll(async () => {
  server = booted.current;
  [viewer, followed, stranger, other, ...fans] = await Promise.all(Array.from({ length: 7 }, () => registerAndLogin(server)));
  await follow(viewer, followed);
  ids.followedOld = await publish(server, followed, fullBody(), { createdAt: ago(24 * 30) });
  ids.followedNew = await publish(server, followed, fullBody(), { createdAt: ago(24 * 10) });
  ids.freshPopular = await publish(server, stranger, fullBody(), { createdAt: ago(24) });
  ids.freshQuiet = await publish(server, stranger, fullBody(), { createdAt: ago(2) });
  ids.oldPopular = await publish(server, other, fullBody(), { createdAt: ago(24 * 20) });
  ids.own = await publish(server, viewer, fullBody(), { createdAt: ago(1) });
  ids.draft = await createContent(stranger);
  for (const fan of fans.slice(0, 2)) await fan.api.post(`/api/v1/content/${ids.freshPopular}/reactions`);
  for (const fan of fans) await fan.api.post(`/api/v1/content/${ids.oldPopular}/reactions`);
});

const feed = (client: ApiClient, query = '', headers: Record<string, string> = {}) => client.get(`${CONTENT}/feeds${query}`, { headers });
const idsOf = (items: { id: string }[]) => items.map((i) => i.id);

describe('GET /content/api/v1/feeds', () => {
  it('should fail without a token', async () => {
    expectErrorEnvelope(await feed(new ApiClient(server.url)), 401);
  });

  it('should fail with a malformed cursor', async () => {
    const forged = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const cursor of [
      'garbage!!',
      'e30',
      forged({ v: 1, t: 'x', b: 0, c: 'y', i: 'z' }),
      forged({ v: 1, t: '2024-01-01T00:00:00.000000', b: 7, c: '2024-01-01T00:00:00.000000', i: ids.own }),
      "' or 1=1 --",
    ]) {
      expectErrorEnvelope(await feed(viewer.api, `?cursor=${encodeURIComponent(cursor)}`), 400, 'content.error.invalid_cursor');
    }
  });

  it('should fail with a malformed page size', async () => {
    expectErrorEnvelope(await feed(viewer.api, '?per_page=1000'), 400);
    expectErrorEnvelope(await feed(viewer.api, '?per_page=zero'), 400);
  });

  it('should rank followed uploaders, then fresh popular items, then the rest', async () => {
    const res = await feed(viewer.api);
    expect(res.status).toBe(200);
    expect(res.body.data.has_more).toBe(false);
    expect(res.body.data.next_cursor).toBeNull();
    expect(idsOf(res.body.data.items)).toEqual([ids.followedNew, ids.followedOld, ids.freshPopular, ids.freshQuiet, ids.oldPopular]);
  });

  it('should answer abridged items in the requested language', async () => {
    const res = await feed(viewer.api, '?per_page=1', { 'x-language': 'vi' });
    const item = res.body.data.items[0];
    expect(Object.keys(item).sort()).toEqual([
      'area',
      'comment_count',
      'content_info',
      'created_at',
      'id',
      'price',
      'reaction_count',
      'unit_area',
      'unit_price',
      'uploader',
      'video',
      'view_count',
    ]);
    expect(Object.keys(item.video).sort()).toEqual(['thumbnail_url', 'url']);
    expect(item.video.url).toMatch(/\.m3u8$/);
    expect(item.uploader).toEqual({ name: 'Test User', avatar: null });
    expect(item.content_info).toEqual([expect.objectContaining({ lang: 'vi', location: 'Quận 7, TP. Hồ Chí Minh' })]);
  });

  it('should answer a cursor when more items follow', async () => {
    const res = await feed(viewer.api, '?per_page=1');
    expect(res.body.data.has_more).toBe(true);
    expect(typeof res.body.data.next_cursor).toBe('string');
  });

  it('should count reactions on feed items', async () => {
    const popular = (await feed(viewer.api)).body.data.items.find((i: { id: string }) => i.id === ids.oldPopular);
    expect(popular.reaction_count).toBe(fans.length);
  });

  it('should neither repeat nor skip items while new items, likes and follows arrive', async () => {
    const first = await feed(viewer.api, '?per_page=2');
    expect(idsOf(first.body.data.items)).toEqual([ids.followedNew, ids.followedOld]);

    // Between pages: a new item by the followed uploader (would rank first), a new item by a
    // stranger, likes that would make the quiet item popular, and a new follow.
    const arrivedFollowed = await publish(server, followed);
    const arrivedStranger = await publish(server, stranger);
    for (const fan of fans.slice(0, 3)) await fan.api.post(`/api/v1/content/${ids.freshQuiet}/reactions`);
    await follow(viewer, other);

    const seen = [...idsOf(first.body.data.items)];
    let cursor: string | null = first.body.data.next_cursor;
    let pages = 1;
    while (cursor) {
      const next = await feed(viewer.api, `?per_page=2&cursor=${cursor}`);
      expect(next.status).toBe(200);
      seen.push(...idsOf(next.body.data.items));
      cursor = next.body.data.next_cursor;
      expect(next.body.data.has_more).toBe(cursor !== null);
      pages++;
      expect(pages).toBeLessThan(10);
    }
    expect(seen).toEqual([ids.followedNew, ids.followedOld, ids.freshPopular, ids.freshQuiet, ids.oldPopular]);

    // A new first page sees the world as it is now.
    const fresh = idsOf((await feed(viewer.api, '?per_page=50')).body.data.items);
    expect(fresh.slice(0, 4)).toEqual([arrivedFollowed, ids.followedNew, ids.oldPopular, ids.followedOld]);
    expect(fresh).toContain(arrivedStranger);
    expect(fresh.indexOf(ids.freshQuiet)).toBeLessThan(fresh.indexOf(arrivedStranger)); // now popular
    expect(new Set(fresh).size).toBe(fresh.length);
  });

  it('should answer, for pages read ahead with the page before them, what each cursor reads alone', async () => {
    // Every page the node keeps is dropped by an event that may change listings (this one changes
    // nothing else): with a drop before every request, each page is read from its own cursor.
    const dropKeptPages = () => server.service.app.events.publishAndWait('role.permissions.changed', {});
    const walk = async (alone: boolean) => {
      await dropKeptPages();
      const pages: { ids: string[]; hasMore: boolean }[] = [];
      let cursor: string | null = null;
      do {
        if (alone) await dropKeptPages();
        const res = await feed(viewer.api, `?per_page=1${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        pages.push({ ids: idsOf(res.body.data.items), hasMore: res.body.data.has_more });
        cursor = res.body.data.next_cursor;
        expect(pages.length).toBeLessThan(30);
      } while (cursor);
      return pages;
    };
    const readAhead = await walk(false);
    // Past every bucket boundary (followed, popular, the rest), one item a page.
    expect(readAhead.length).toBeGreaterThanOrEqual(5);
    expect(await walk(true)).toEqual(readAhead);
  });

  it('should leave out deleted items on later pages', async () => {
    const first = await feed(viewer.api, '?per_page=1');
    const victim = (await feed(viewer.api, '?per_page=2')).body.data.items[1].id;
    await server.service.app.database.rows(sql`update contents set deleted_at = now() where id = ${victim}`);
    const second = await feed(viewer.api, `?per_page=1&cursor=${first.body.data.next_cursor}`);
    expect(idsOf(second.body.data.items)).not.toContain(victim);
  });
});
