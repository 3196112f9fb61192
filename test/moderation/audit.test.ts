// The moderation audit log (CONTRACT §21): who may read it, its shape, its filters and cursor,
// bad parameters, and that an entry appended inside a transaction commits or rolls back with it.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, loginAdmin, registerAndLogin, type ApiResponse, type TestUser } from '../helpers/api.js';

const path = '/api/v1/moderation/audit';
const booted = useTestServer();
let server: TestServer;
let admin: TestUser;
let user: TestUser;
const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * Appends straight through the node's service (the actions that append have their own tests).
 * Entries are written to the millisecond and those of one millisecond are listed by id (random):
 * each append then waits a few milliseconds, so the order the tests expect is the time order.
 */
async function append(actorId: string | null, targetId: string, action = 'test.action', note = '') {
  const entry = await server.service.services.auditLog.append({ actorId, action, targetType: 'user', targetId, note });
  await new Promise((resolve) => setTimeout(resolve, 3));
  return entry;
}

beforeAll(async () => {
  server = booted.current;
  admin = await loginAdmin(server);
  user = await registerAndLogin(server);
});

describe('refusals', () => {
  it('401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).get(path), 401);
  });

  it('403 without moderate:content', async () => {
    expectErrorEnvelope(await user.api.get(path), 403, 'authorization.error');
  });

  it('400 for bad parameters', async () => {
    for (const query of ['actor_id=not-a-uuid', 'cursor=garbage', 'limit=0', 'limit=101', 'limit=abc', `target_id=${'x'.repeat(129)}`, 'unknown=1']) {
      expectErrorEnvelope(await admin.api.get(`${path}?${query}`), 400);
    }
  });
});

describe('reading', () => {
  it('answers entries in the documented shape, newest first', async () => {
    const target = randomUUID();
    await append(admin.userId, target, 'test.first', 'first');
    await append(admin.userId, target, 'test.second', 'second');
    const res = await admin.api.get(`${path}?target_id=${target}`);
    expect(res.status).toBe(200);
    const { items, next_cursor } = res.body.data;
    expect(next_cursor).toBeNull();
    expect(items.map((i: any) => i.action)).toEqual(['test.second', 'test.first']);
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(['action', 'actor_id', 'created_at', 'id', 'note', 'target_id', 'target_type']);
      expect(item.actor_id).toBe(admin.userId);
      expect(item.target_type).toBe('user');
      expect(item.target_id).toBe(target);
      expect(item.created_at).toMatch(isoTime);
    }
    expect(items[1].note).toBe('first');
  });

  it('filters by actor and by target, and by both', async () => {
    const target = randomUUID();
    const other = randomUUID();
    await append(user.userId, target, 'test.by_user');
    await append(admin.userId, target, 'test.by_admin');
    await append(user.userId, other, 'test.by_user_other');
    const byTarget = (await admin.api.get(`${path}?target_id=${target}`)).body.data.items;
    expect(byTarget.map((i: any) => i.action)).toEqual(['test.by_admin', 'test.by_user']);
    const byActor = (await admin.api.get(`${path}?actor_id=${user.userId}`)).body.data.items;
    expect(byActor.map((i: any) => i.action)).toEqual(['test.by_user_other', 'test.by_user']);
    const both = (await admin.api.get(`${path}?actor_id=${user.userId}&target_id=${target}`)).body.data.items;
    expect(both.map((i: any) => i.action)).toEqual(['test.by_user']);
    const nobody = (await admin.api.get(`${path}?actor_id=${randomUUID()}`)).body.data;
    expect(nobody).toEqual({ items: [], next_cursor: null });
  });

  it('pages through entries of the same millisecond without repeats or gaps', async () => {
    const target = randomUUID();
    const actions = Array.from({ length: 8 }, (_, i) => `test.same_${i}`);
    await Promise.all(actions.map((action) => append(admin.userId, target, action)));
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 20; pages++) {
      const res: ApiResponse = await admin.api.get(`${path}?target_id=${target}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.items.map((i: any) => i.action));
      cursor = res.body.data.next_cursor;
      if (!cursor) break;
    }
    expect([...seen].sort()).toEqual(actions);
  });

  it('pages with the cursor, without repeats or gaps', async () => {
    const target = randomUUID();
    for (let i = 0; i < 5; i++) await append(admin.userId, target, `test.page_${i}`);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `target_id=${target}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await admin.api.get(`${path}?${query}`);
      expect(res.status).toBe(200);
      expect(res.body.data.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.items.map((i: any) => i.action));
      cursor = res.body.data.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(['test.page_4', 'test.page_3', 'test.page_2', 'test.page_1', 'test.page_0']);
  });

  it('keeps an entry appended in a transaction only when that transaction commits', async () => {
    const target = randomUUID();
    const { database } = server.service.app;
    await expect(
      database.transaction(async (tx) => {
        await server.service.services.auditLog.append({ actorId: admin.userId, action: 'test.rolled_back', targetType: 'user', targetId: target }, tx);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await database.transaction((tx) =>
      server.service.services.auditLog.append({ actorId: admin.userId, action: 'test.committed', targetType: 'user', targetId: target }, tx),
    );
    const items = (await admin.api.get(`${path}?target_id=${target}`)).body.data.items;
    expect(items.map((i: any) => i.action)).toEqual(['test.committed']);
  });
});
