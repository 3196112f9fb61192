// comment_count beside reaction_count in every listing item (CONTRACT §15): /feeds, /completed,
// /all and the detail, kept by the database on every comment insert and delete.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { announceContentChanged } from '../helpers/behind-the-service.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { CONTENT, publish } from '../content/fixtures.js';
import { follow } from './fixtures.js';
import { completedItemSchema, feedItemSchema, listingItemSchema } from '../../src/content/response-schemas.js';

const booted = useTestServer();
let server: TestServer;
let uploader: TestUser;
let reader: TestUser;
let id: string;

const comment = (user: TestUser, body: Record<string, unknown>) => user.api.post('/sns/api/v1/comments', body);
const find = (items: { id: string }[]) => items.find((i) => i.id === id) as any;

beforeAll(async () => {
  server = booted.current;
  [uploader, reader] = await Promise.all([registerAndLogin(server), registerAndLogin(server)]);
  await follow(reader, uploader);
  id = await publish(server, uploader);
  const first = await comment(reader, { contentId: id, msg: 'How many bedrooms?' });
  expect(first.status).toBe(201);
  expect((await comment(uploader, { contentId: id, msg: 'Two', parentId: first.body.data.id })).status).toBe(201);
  expect((await comment(reader, { contentId: id, msg: 'Thanks' })).status).toBe(201);
  expect((await reader.api.post(`/api/v1/content/${id}/reactions`)).status).toBe(200);
});

describe('comment_count', () => {
  it('should count comments and replies in /feeds', async () => {
    const res = await reader.api.get(`${CONTENT}/feeds?per_page=50`);
    expect(res.status).toBe(200);
    expect(find(res.body.data.items)).toMatchObject({ reaction_count: 1, comment_count: 3 });
  });

  it('should count them in /completed and /all', async () => {
    const completed = await reader.api.get(`${CONTENT}/completed?per_page=100`);
    expect(find(completed.body.data.items)).toMatchObject({ reaction_count: 1, comment_count: 3 });
    const all = await reader.api.get(`${CONTENT}/all?per_page=100`);
    expect(find(all.body.data.item)).toMatchObject({ reaction_count: 1, comment_count: 3 });
  });

  it('should answer items exactly as the OpenAPI document describes them', async () => {
    const feeds = await reader.api.get(`${CONTENT}/feeds?per_page=50`);
    const completed = await reader.api.get(`${CONTENT}/completed?per_page=100`);
    const all = await reader.api.get(`${CONTENT}/all?per_page=100`);
    // strict: a field the document does not name fails too.
    for (const item of feeds.body.data.items) feedItemSchema.strict().parse(item);
    for (const item of completed.body.data.items) completedItemSchema.strict().parse(item);
    for (const item of all.body.data.item) listingItemSchema.strict().parse(item);
    expect(feeds.body.data.items.length + completed.body.data.items.length + all.body.data.item.length).toBeGreaterThan(2);
  });

  it('should follow a comment removed from the table, and survive its item being removed', async () => {
    const db = server.service.app.database;
    await db.rows(sql`delete from comments where id = (select id from comments where content_id = ${id} and msg = 'Thanks')`);
    await announceContentChanged(server, id);
    const all = await reader.api.get(`${CONTENT}/all?per_page=100`);
    expect(find(all.body.data.item).comment_count).toBe(2);
    // A hard delete cascades to the comments, whose trigger finds no item to count on.
    const doomed = await publish(server, uploader);
    expect((await comment(reader, { contentId: doomed, msg: 'gone soon' })).status).toBe(201);
    await db.rows(sql`delete from contents where id = ${doomed}`);
    const [left] = await db.rows<{ n: number }>(sql`select count(*)::int as n from comments where content_id = ${doomed}`);
    expect(left.n).toBe(0);
  });
});
