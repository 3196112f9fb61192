// GET /content/api/v1/feeds pages read from the database (the node's kept pages dropped before
// each request), over the real server: the followed uploaders' items merged newest first across
// uploaders and pages (also when one uploader has most of them: each uploader's read is first
// capped near its share of the page, listing-repository.ts feedBucket), a held item left out, and the snapshot rules of each bucket on later pages
// (a like or a follow made after the first page moves nothing; a like counts as of the snapshot
// even when the kept reaction_count already reaches the threshold).
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { registerAndLogin, type ApiResponse, type TestUser } from '../helpers/api.js';
import { CONTENT, fullBody, publish, hoursAgo, insertFollow } from './fixtures.js';

const booted = useTestServer();
let server: TestServer;
let viewer: TestUser;
let followedA: TestUser;
let followedB: TestUser;
let followedLater: TestUser;
let stranger: TestUser;
let fans: TestUser[];
const ids: Record<string, string> = {};
const ago = hoursAgo;

const follow = (follower: TestUser, following: TestUser) => insertFollow(server, follower, following);

const like = async (fan: TestUser, id: string) => {
  const res = await fan.api.post(`/api/v1/content/${id}/reactions`);
  expect(res.status).toBeLessThan(300);
};

beforeAll(async () => {
  server = booted.current;
  [viewer, followedA, followedB, followedLater, stranger, ...fans] = await Promise.all(Array.from({ length: 8 }, () => registerAndLogin(server)));
  await follow(viewer, followedA);
  await follow(viewer, followedB);
  // The two followed uploaders' items interleave in time: the page must merge them.
  for (const [key, who, hours] of [
    ['a1', followedA, 1],
    ['b1', followedB, 3],
    ['a2', followedA, 5],
    ['b2', followedB, 7],
    ['a3', followedA, 9],
    ['b3', followedB, 11],
  ] as const) {
    ids[key] = await publish(server, who, fullBody(), { createdAt: ago(hours) });
  }
  ids.heldA = await publish(server, followedA, fullBody(), { createdAt: ago(2) });
  await server.service.app.database.rows(sql`update contents set moderation_status = 'under_review' where id = ${ids.heldA}`);
  ids.laterFollowed = await publish(server, followedLater, fullBody(), { createdAt: ago(0.5) });
  ids.oneLike = await publish(server, stranger, fullBody(), { createdAt: ago(2) });
  ids.popular = await publish(server, stranger, fullBody(), { createdAt: ago(4) });
  ids.quiet = await publish(server, stranger, fullBody(), { createdAt: ago(6) });
  ids.oldPopular = await publish(server, stranger, fullBody(), { createdAt: ago(24 * 30) });
  // A followed uploader's popular item stays with the followed ones.
  for (const fan of fans.slice(0, 2)) await like(fan, ids.a2);
  await like(fans[0], ids.oneLike);
  for (const fan of fans) await like(fan, ids.popular);
  for (const fan of fans) await like(fan, ids.oldPopular);
});

const idsOf = (items: { id: string }[]) => items.map((i) => i.id);
const dropKeptPages = () => server.service.app.events.publishAndWait('role.permissions.changed', {});

/** Every page from the first, each later one read from its own cursor by the database; `between` runs after the first. */
async function walk(perPage: number, between: () => Promise<void> = async () => {}, reader: TestUser = viewer) {
  await dropKeptPages();
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: ApiResponse = await reader.api.get(`${CONTENT}/feeds?per_page=${perPage}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    expect(res.body.data.items.length).toBeLessThanOrEqual(perPage);
    seen.push(...idsOf(res.body.data.items));
    cursor = res.body.data.next_cursor;
    expect(res.body.data.has_more).toBe(cursor !== null);
    if (++pages === 1) await between();
    await dropKeptPages();
    expect(pages).toBeLessThan(60);
  } while (cursor);
  return seen;
}

describe('GET /content/api/v1/feeds pages read from the database', () => {
  const atSnapshot = () => [
    ids.a1,
    ids.b1,
    ids.a2,
    ids.b2,
    ids.a3,
    ids.b3, // followed, merged newest first
    ids.popular, // fresh with 4 reactions
    ids.laterFollowed,
    ids.oneLike,
    ids.quiet,
    ids.oldPopular, // the rest
  ];

  it('should merge the followed uploaders newest first across pages of every size, without a held item', async () => {
    for (const perPage of [1, 2, 3, 5]) expect(await walk(perPage)).toEqual(atSnapshot());
  });

  it('should move nothing on later pages for likes, follows and items that arrive after the first page', async () => {
    const expected = atSnapshot();
    let arrived = '';
    const seen = await walk(2, async () => {
      // After T: oneLike reaches 2 reactions (kept reaction_count 2, but 1 as of T), quiet gets
      // 2 (0 as of T), the viewer follows another uploader, a followed uploader publishes.
      await like(fans[1], ids.oneLike);
      await like(fans[0], ids.quiet);
      await like(fans[1], ids.quiet);
      await follow(viewer, followedLater);
      arrived = await publish(server, followedA, fullBody());
    });
    expect(seen).toEqual(expected);

    // A new first page sees them all.
    expect(await walk(3)).toEqual([
      arrived,
      ids.laterFollowed,
      ids.a1,
      ids.b1,
      ids.a2,
      ids.b2,
      ids.a3,
      ids.b3,
      ids.oneLike,
      ids.popular,
      ids.quiet,
      ids.oldPopular,
    ]);
  });

  it('should list every item of an uploader who has far more than the others, in order, across pages', async () => {
    // Last: its items would be in the other tests' feeds. A reader following three uploaders, one
    // of whom has published most of what they follow: each page must hold that uploader's next
    // items however many of them it takes (more than its share of the page).
    const [reader, prolific, quiet, quieter] = await Promise.all(Array.from({ length: 4 }, () => registerAndLogin(server)));
    for (const uploader of [prolific, quiet, quieter]) await follow(reader, uploader);
    const prolificIds: string[] = [];
    for (let i = 0; i < 24; i++) prolificIds.push(await publish(server, prolific, fullBody(), { createdAt: ago(100 + i) }));
    const quietId = await publish(server, quiet, fullBody(), { createdAt: ago(200) });
    const quieterId = await publish(server, quieter, fullBody(), { createdAt: ago(300) });
    for (const perPage of [5, 7, 20]) {
      const seen = await walk(perPage, async () => {}, reader);
      expect(seen.slice(0, 26)).toEqual([...prolificIds, quietId, quieterId]);
    }
  });
});
