// Fixtures for the comment and chat tests: content items (through the content API, or a row
// in `contents` when that API refuses), soft deletion, and a few users.
import { sql } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import type { TestServer } from '../helpers/server.js';
import { announceContentChanged } from '../helpers/behind-the-service.js';
import type { TestUser } from '../helpers/api.js';

const contentBody = {
  price: 2_500_000_000,
  unit_price: 'VND',
  area: 72,
  unit_area: 'm2',
  video: { original_name: 'tour.mp4', size: 1_000_000 },
  real_estate_info: { apartment_type: 'apartment', project_status: 'completed' },
  content_info: [{ lang: 'en', project_name: 'River view tower', description: 'Two bedrooms' }],
};

/**
 * A published content item uploaded by `owner`; returns its id. Only a published item takes
 * comments from everyone (CONTRACT §19), so the fixture marks it processed as the video worker does.
 */
export async function createContent(server: TestServer, owner: TestUser): Promise<string> {
  const res = await owner.api.post('/content/api/v1/content', contentBody);
  if (res.status === 201 && typeof res.body?.data?.id === 'string') {
    const id: string = res.body.data.id;
    await markPublished(server, id);
    return id;
  }
  const id = randomUUID();
  await server.service.app.database.rows(sql`
    insert into contents (id, uploader_id, price, unit_price, area, unit_area, video)
    values (${id}, ${owner.userId}, 1000, 'VND', 50, 'm2',
            ${JSON.stringify({ original_name: 'tour.mp4', size: 1000, resolution: null, duration: null, status: 'pending', original_path: null, playlist_path: null, thumbnail_path: null, error: null })}::jsonb)`);
  await markPublished(server, id);
  return id;
}

/** Fixture: the state the video worker writes when the item's video is processed. */
export async function markPublished(server: TestServer, contentId: string): Promise<void> {
  await server.service.app.database.rows(sql`
    update contents set status = 'completed', video = video || '{"status": "completed"}'::jsonb where id = ${contentId}`);
  await announceContentChanged(server, contentId);
}

export async function softDeleteContent(server: TestServer, contentId: string): Promise<void> {
  await server.service.app.database.rows(sql`update contents set deleted_at = now() where id = ${contentId}`);
  await announceContentChanged(server, contentId);
}
