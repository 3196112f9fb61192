// Shared test data for the content tests: a valid creation body, and a way to mark an item's
// video as processed.
import { sql } from 'drizzle-orm';
import type { TestServer } from '../helpers/server.js';
import { announceContentChanged } from '../helpers/behind-the-service.js';
import type { TestUser } from '../helpers/api.js';

export const CONTENT = '/content/api/v1';

export function fullBody(overrides: Record<string, unknown> = {}) {
  return {
    price: 3_500_000_000,
    unit_price: 'VND',
    area: 70,
    unit_area: 'm²',
    video: { original_name: 'tour.mp4', size: 10_485_760 },
    real_estate_info: { legal_certificates: 'pink_book', apartment_type: 'apartment', project_status: 'handed_over' },
    content_info: [
      { lang: 'vi', project_name: 'Căn hộ Sài Gòn Riverside', description: 'Căn hộ 2 phòng ngủ, view sông', address: 'Quận 7, TP. Hồ Chí Minh' },
      { lang: 'en', project_name: 'Saigon Riverside Apartment', description: 'Two bedrooms, river view', address: 'District 7, Ho Chi Minh City' },
    ],
    hash_tags: ['#canho', '#district7'],
    geo: { lat: 10.7296, long: 106.7218 },
    amenities: ['pool', 'gym'],
    ...overrides,
  };
}

export function uploadFlowBody(overrides: Record<string, unknown> = {}) {
  return {
    price: 250_000,
    unit_price: 'usd',
    area: 900,
    unit_area: 'sq ft',
    profit_rate: { roi: 7.5, roa: 4.2 },
    isMultiLanguage: true,
    geo: { type: 'Point', coordinates: [126.978, 37.5665] },
    content_info: [
      {
        lang: 'ko',
        project_name: '서울 강남 아파트',
        description: '역세권 신축 아파트',
        address: '서울특별시 강남구',
        legal_certificates: '등기부등본',
        apartment_type: '아파트',
        project_status: '완공',
        extra_description: '주차 2대',
      },
      {
        lang: 'en',
        project_name: 'Gangnam apartment',
        description: 'New build near the subway',
        address: 'Gangnam-gu, Seoul',
        legal_certificates: 'registered',
        apartment_type: 'apartment',
        project_status: 'completed',
        extra_description: 'Two parking spaces',
      },
    ],
    ...overrides,
  };
}

/** Creates an item through the API; returns its id. */
export async function createContent(user: TestUser, body: Record<string, unknown> = fullBody()): Promise<string> {
  const res = await user.api.post(`${CONTENT}/content`, body);
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.data.id;
}

/**
 * Fixture, not a mock: video processing belongs to the media worker, so tests that need a
 * published item write the state that worker writes (CONTRACT data contract) straight into the
 * real database.
 */
export async function markCompleted(server: TestServer, id: string, extra: { createdAt?: string } = {}): Promise<void> {
  const video = {
    status: 'completed',
    resolution: '1080x1920',
    duration: 31.5,
    original_path: `videos/${id}/original.mp4`,
    playlist_path: `videos/${id}/hls/index.m3u8`,
    thumbnail_path: `videos/${id}/thumb.jpg`,
  };
  await server.service.app.database.rows(sql`
    update contents set status = 'completed', video = video || ${JSON.stringify(video)}::jsonb,
      created_at = coalesce(${extra.createdAt ?? null}::timestamptz, created_at), updated_at = now()
    where id = ${id}`);
  await announceContentChanged(server, id);
}

/** Fixture: attaches stored images the way the upload endpoint does. */
export async function attachImages(server: TestServer, id: string, names: string[]): Promise<void> {
  const images = names.map((name, i) => ({ id: `00000000-0000-4000-8000-00000000000${i}`, path: `images/${id}/${name}`, name }));
  await server.service.app.database.rows(sql`update contents set images = images || ${JSON.stringify(images)}::jsonb where id = ${id}`);
  await announceContentChanged(server, id);
}

export async function publish(
  server: TestServer,
  user: TestUser,
  body: Record<string, unknown> = fullBody(),
  extra: { createdAt?: string } = {},
): Promise<string> {
  const id = await createContent(user, body);
  await markCompleted(server, id, extra);
  return id;
}

/** An ISO time `hours` before now (feed fixtures: items created at chosen ages). */
export const hoursAgo = (hours: number): string => new Date(Date.now() - hours * 3_600_000).toISOString();

/** Fixture: a follow row, as the follow endpoint writes it. */
export async function insertFollow(server: TestServer, follower: TestUser, following: TestUser): Promise<void> {
  await server.service.app.database.rows(sql`
    insert into follows (follower_id, following_id) values (${follower.userId}, ${following.userId}) on conflict do nothing`);
}
