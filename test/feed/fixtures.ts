// Fixtures of the live-feed and saved-search tests: publishing an item the way the video worker
// does (the `completed` state in the database, then `video.completed` on the node's bus), follows
// through the follow API, and reading a user's notifications through the inbox API.
import { sql } from 'drizzle-orm';
import type { RunningService } from '../../service.js';
import type { TestServer } from '../helpers/server.js';
import type { TestUser } from '../helpers/api.js';
import { createContent, fullBody, markCompleted } from '../content/fixtures.js';

export const SAVED = '/content/api/v1/saved-searches';

/** A body at a given place and price (the rest as fullBody). */
export function listing(overrides: { lat?: number; long?: number; price?: number; amenities?: string[]; project_name?: string } = {}) {
  const body = fullBody({
    geo: { lat: overrides.lat ?? 10.7296, long: overrides.long ?? 106.7218 },
    price: overrides.price ?? 3_500_000_000,
    amenities: overrides.amenities ?? ['pool', 'gym'],
  });
  if (overrides.project_name) body.content_info = [{ lang: 'en', project_name: overrides.project_name, description: 'Flat', address: 'District 7' }];
  return body;
}

/**
 * Publishes an item as the video worker does: the row marked completed in the database (which
 * queues it for saved-search matching), then `video.completed` on `node`'s event bus (the node
 * that "processed" it). Returns the item id.
 */
export async function publishLive(
  server: TestServer,
  user: TestUser,
  body: Record<string, unknown> = fullBody(),
  node: RunningService = server.service,
): Promise<string> {
  const id = await createContent(user, body);
  await markCompleted(server, id);
  const video = {
    original_name: 'tour.mp4',
    size: 10_485_760,
    resolution: '1080x1920',
    duration: 31.5,
    status: 'completed',
    thumbnail_url: null,
    content_url: null,
    url: null,
  };
  node.app.events.publish('video.completed', { uploaderId: user.userId, contentId: id, video });
  return id;
}

/** Publishes without the event: as if the node died right after the commit. */
export async function publishSilently(server: TestServer, user: TestUser, body: Record<string, unknown> = fullBody()): Promise<string> {
  const id = await createContent(user, body);
  await markCompleted(server, id);
  return id;
}

export async function follow(follower: TestUser, followed: TestUser): Promise<void> {
  const res = await follower.api.post(`/auth/api/v1/users/${followed.userId}/follow`, undefined, { headers: { 'x-user-id': follower.userId } });
  if (res.status !== 200 && res.status !== 201) throw new Error(`follow failed: ${res.status} ${res.text}`);
}

export async function unfollow(follower: TestUser, followed: TestUser): Promise<void> {
  const res = await follower.api.delete(`/auth/api/v1/users/${followed.userId}/follow`);
  if (res.status !== 200 && res.status !== 204) throw new Error(`unfollow failed: ${res.status} ${res.text}`);
}

export async function notificationsOf(user: TestUser, type = 'saved_search.match'): Promise<any[]> {
  const res = await user.api.get('/sns/api/v1/notifications?limit=100');
  if (res.status !== 200) throw new Error(`inbox failed: ${res.status} ${res.text}`);
  return res.body.data.notifications.filter((n: { type: string }) => n.type === type);
}

/** Waits until none of `ids` is queued for saved-search matching any more (the fast path took them). */
export async function matched(service: RunningService, ids: string[], timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await service.app.database.rows<{ n: number }>(sql`
      select count(*)::int as n from saved_search_queue where content_id = any(${`{${ids.join(',')}}`}::uuid[])`);
    if (row.n === 0) return;
    if (Date.now() > until) throw new Error(`${row.n} items still queued`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Collects every `event` on a socket, to assert on what arrived (and what did not). */
export function collect<T = any>(socket: { on(event: string, listener: (payload: T) => void): unknown }, event: string): T[] {
  const seen: T[] = [];
  socket.on(event, (payload: T) => seen.push(payload));
  return seen;
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once `list` holds an entry satisfying `match` (polling; the test's timeout bounds it). */
export async function arrived<T>(list: T[], match: (entry: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = list.find(match);
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`not arrived within ${timeoutMs} ms (have ${list.length})`);
    await pause(25);
  }
}
