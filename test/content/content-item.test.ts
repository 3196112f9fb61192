// Creation, detail, edit, delete and reactions of one content item, over the real server.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import { attachImages, CONTENT, createContent, fullBody, markCompleted, publish, uploadFlowBody } from './fixtures.js';

const booted = useTestServer();
let server: TestServer;
let owner: TestUser;
let other: TestUser;
let admin: TestUser;
let anonymous: ApiClient;
const UNKNOWN = '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b';

beforeAll(async () => {
  server = booted.current;
  [owner, other, admin] = await Promise.all([registerAndLogin(server), registerAndLogin(server), loginAdmin(server)]);
  anonymous = new ApiClient(server.url);
});

describe('POST /content/api/v1/content', () => {
  it('should fail without a token', async () => {
    expectErrorEnvelope(await anonymous.post(`${CONTENT}/content`, fullBody()), 401);
  });

  it('should fail with bad input', async () => {
    const bad: [string, Record<string, unknown>][] = [
      ['price', fullBody({ price: 0 })],
      ['price', fullBody({ price: '100' })],
      ['area', fullBody({ area: -5 })],
      ['unit_price', fullBody({ unit_price: 'XYZ' })],
      ['unit_area', fullBody({ unit_area: 'hectare' })],
      ['content_info', fullBody({ content_info: [] })],
      ['content_info.0.lang', fullBody({ content_info: [{ lang: 'fr', project_name: 'x' }] })],
      [
        'content_info',
        fullBody({
          content_info: [
            { lang: 'en', project_name: 'a' },
            { lang: 'en', project_name: 'b' },
          ],
        }),
      ],
      ['hash_tags.0', fullBody({ hash_tags: ['nohash'] })],
      ['geo', fullBody({ geo: { lat: 91, long: 10 } })],
      ['geo', fullBody({ geo: { type: 'Point', coordinates: [200, 10] } })],
      ['amenities.0', fullBody({ amenities: ['x'.repeat(101)] })],
      ['video.size', fullBody({ video: { original_name: 'a.mp4', size: 'big' } })],
      ['real_estate_info', fullBody({ real_estate_info: undefined })],
      ['content_info.0.project_name', fullBody({ content_info: [{ lang: 'en', project_name: 'x'.repeat(201) }] })],
    ];
    for (const [field, body] of bad) {
      const res = await owner.api.post(`${CONTENT}/content`, body);
      const err = expectErrorEnvelope(res, 400, 'validation.error');
      expect(err.details?.field.startsWith(field), `${field}: ${err.details?.field}`).toBe(true);
    }
    expectErrorEnvelope(await owner.api.request('POST', `${CONTENT}/content`, { rawBody: '{"price":', headers: { 'content-type': 'application/json' } }), 400);
  });

  it('should create the full form as processing', async () => {
    const res = await owner.api.post(`${CONTENT}/content`, fullBody());
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual(['area', 'created_at', 'id', 'price', 'status', 'unit_area', 'unit_price']);
    expect(d).toMatchObject({ price: 3_500_000_000, unit_price: 'VND', area: 70, unit_area: 'm2', status: 'processing' });
    expect(new Date(d.created_at).toISOString()).toBe(d.created_at);
    const [row] = await server.service.app.database.rows<{ video: { status: string; original_name: string; size: number } }>(
      sql`select video from contents where id = ${d.id}`,
    );
    expect(row.video).toMatchObject({ status: 'pending', original_name: 'tour.mp4', size: 10_485_760 });
  });

  it('should create the upload-flow form, normalising units', async () => {
    const res = await owner.api.post(`${CONTENT}/content`, uploadFlowBody());
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ unit_price: 'USD', unit_area: 'sqft', status: 'processing' });
    const detail = await owner.api.get(`/api/v1/content/${res.body.data.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data.profit_rate).toEqual({ roi: 7.5, roa: 4.2 });
    expect(detail.body.data.geo).toEqual({ lat: 37.5665, long: 126.978 });
    expect(detail.body.data.content_info.ko).toMatchObject({ project_name: '서울 강남 아파트', apartment_type: '아파트' });
    expect(detail.body.data.real_estate_info).toMatchObject({ apartment_type: 'apartment', project_status: 'completed' });
  });

  it('should publish content.created', async () => {
    const seen: string[] = [];
    const stop = server.service.app.events.subscribe('content.created', (e) => seen.push(e.contentId));
    const id = await createContent(owner);
    stop();
    expect(seen).toContain(id);
  });
});

describe('GET /api/v1/content/:id', () => {
  let published: string;
  let draft: string;
  beforeAll(async () => {
    published = await publish(server, owner);
    draft = await createContent(owner);
  });

  it('should fail with a malformed id', async () => {
    expectErrorEnvelope(await anonymous.get('/api/v1/content/not-a-uuid'), 400);
  });

  it('should fail with an unknown id', async () => {
    expectErrorEnvelope(await anonymous.get(`/api/v1/content/${UNKNOWN}`), 404, 'content.error');
  });

  it('should fail with a bad token', async () => {
    expectErrorEnvelope(await anonymous.get(`/api/v1/content/${published}`, { token: 'garbage' }), 401);
  });

  it('should fail for unpublished content without a token', async () => {
    expectErrorEnvelope(await anonymous.get(`/api/v1/content/${draft}`), 401, 'content.error.restricted');
  });

  it("should fail for another user's unpublished content, without revealing it", async () => {
    expectErrorEnvelope(await other.api.get(`/api/v1/content/${draft}`), 404);
  });

  it('should answer unpublished content to its owner and administrators', async () => {
    expect((await owner.api.get(`/api/v1/content/${draft}`)).status).toBe(200);
    expect((await admin.api.get(`/api/v1/content/${draft}`)).status).toBe(200);
  });

  it('should answer the detail, hiding the phone from anonymous callers', async () => {
    const res = await anonymous.get(`/api/v1/content/${published}`);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(Object.keys(d.content_info).sort()).toEqual(['en', 'ko', 'vi']);
    expect(d.content_info.ko).toBeNull();
    expect(d.content_info.vi).toMatchObject({ project_name: 'Căn hộ Sài Gòn Riverside', address: 'Quận 7, TP. Hồ Chí Minh' });
    expect(d.video).toMatchObject({ duration: 31.5, resolution: '1080x1920' });
    expect(d.video.url).toBe(`${server.service.config.publicBaseUrl}/media/videos/${published}/hls/index.m3u8`);
    expect(d.video.thumbnail_url).toMatch(/\/media\/videos\/.+\/thumb\.jpg$/);
    expect(d.uploader).toEqual({ name: 'Test User', phone: null });
  });

  it('should show the phone to a signed-in caller', async () => {
    const signedIn = await other.api.get(`/api/v1/content/${published}`);
    expect(signedIn.body.data.uploader).toEqual({ name: 'Test User', phone: owner.phone });
  });
});

describe('PUT /api/v1/content/:id', () => {
  let id: string;
  const edit = (overrides: Record<string, unknown> = {}) => ({
    price: 4_000_000_000,
    area: 72.5,
    legalStatus: 'pink_book',
    location: { latitude: 10.8, longitude: 106.7 },
    languages: {
      vi: { projectName: 'Căn hộ mới', description: 'Mô tả mới', address: 'Quận 2' },
      ko: { projectName: '새 아파트', description: '새 설명', address: '2군' },
    },
    images: ['front.jpg', 'kitchen.png'],
    amenities: ['pool'],
    ...overrides,
  });
  beforeAll(async () => {
    id = await publish(server, owner);
    await attachImages(server, id, ['front.jpg', 'kitchen.png', 'garden.jpg']);
  });

  it('should fail without a token', async () => {
    expectErrorEnvelope(await anonymous.put(`/api/v1/content/${id}`, edit()), 401);
  });

  it("should fail with 401 for another user's content", async () => {
    expectErrorEnvelope(await other.api.put(`/api/v1/content/${id}`, edit()), 401, 'content.error.forbidden');
  });

  it('should fail with an unknown id', async () => {
    expectErrorEnvelope(await owner.api.put(`/api/v1/content/${UNKNOWN}`, edit()), 404);
  });

  it('should fail with bad input', async () => {
    const cases: Record<string, unknown>[] = [
      edit({ price: 0 }),
      edit({ area: 0 }),
      edit({ price: 'a lot' }),
      edit({ location: { latitude: 10.8 } }),
      edit({ location: undefined }),
      edit({ languages: { vi: { projectName: 'x', description: 'y' } } }),
      edit({ languages: {} }),
      edit({ images: ['1.jpg', '2.jpg', '3.jpg', '4.jpg', '5.jpg', '6.jpg'] }),
      edit({ images: ['anim.gif'] }),
    ];
    for (const body of cases) expectErrorEnvelope(await owner.api.put(`/api/v1/content/${id}`, body), 400);
  });

  it('should fail with an image that is not attached', async () => {
    const unknownImage = expectErrorEnvelope(await owner.api.put(`/api/v1/content/${id}`, edit({ images: ['never-uploaded.jpg'] })), 400);
    expect(unknownImage.error_code).toBe('content.error.unknown_image');
  });

  it('should update the item and answer it', async () => {
    const res = await owner.api.put(`/api/v1/content/${id}`, edit());
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ id, price: 4_000_000_000, area: 72.5, geo: { lat: 10.8, long: 106.7 }, amenities: ['pool'] });
    expect(d.content_info.vi).toMatchObject({ project_name: 'Căn hộ mới', description: 'Mô tả mới', address: 'Quận 2', legal_certificates: 'pink_book' });
    expect(d.content_info.ko).toMatchObject({ project_name: '새 아파트' });
    expect(d.content_info.en).toMatchObject({ project_name: 'Saigon Riverside Apartment' });
    expect(d.images.map((i: { name: string }) => i.name)).toEqual(['front.jpg', 'kitchen.png']);
    expect(d.price_per_area).toBeCloseTo(4_000_000_000 / 72.5);
    // The search text follows the edit.
    const found = await anonymous.get(`${CONTENT}/all?search=${encodeURIComponent('can ho moi')}`);
    expect(found.body.data.item.map((i: { id: string }) => i.id)).toContain(id);
  });

  it("should let an administrator edit anyone's content", async () => {
    const res = await admin.api.put(`/api/v1/content/${id}`, edit({ price: 1, images: undefined }));
    expect(res.status).toBe(200);
    expect(res.body.data.price).toBe(1);
  });
});

describe('DELETE /api/v1/content/:id', () => {
  let id: string;
  beforeAll(async () => {
    id = await publish(server, owner);
  });

  it('should fail without a token', async () => {
    expectErrorEnvelope(await anonymous.delete(`/api/v1/content/${id}`), 401);
  });

  it('should fail with an unknown id', async () => {
    expectErrorEnvelope(await owner.api.delete(`/api/v1/content/${UNKNOWN}`), 404);
  });

  it('should fail with a malformed id', async () => {
    expectErrorEnvelope(await owner.api.delete('/api/v1/content/123'), 400);
  });

  it("should fail with 401 for another user's content", async () => {
    expectErrorEnvelope(await other.api.delete(`/api/v1/content/${id}`), 401, 'content.error.forbidden');
  });

  it('should delete softly', async () => {
    const res = await owner.api.delete(`/api/v1/content/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: 'Content deleted' });
    const [row] = await server.service.app.database.rows<{ deleted: boolean }>(sql`select deleted_at is not null as deleted from contents where id = ${id}`);
    expect(row.deleted).toBe(true);
  });

  it('should no longer answer, list or delete the deleted item', async () => {
    expectErrorEnvelope(await owner.api.get(`/api/v1/content/${id}`), 404);
    expectErrorEnvelope(await owner.api.delete(`/api/v1/content/${id}`), 404);
    const all = await admin.api.get(`${CONTENT}/all?per_page=100`);
    expect(all.body.data.item.map((i: { id: string }) => i.id)).not.toContain(id);
  });

  it("should let an administrator delete anyone's content", async () => {
    const id = await createContent(owner);
    expect((await admin.api.delete(`/api/v1/content/${id}`)).status).toBe(200);
  });
});

describe('reactions', () => {
  it('should fail without a token', async () => {
    const id = await publish(server, owner);
    expectErrorEnvelope(await anonymous.post(`/api/v1/content/${id}/reactions`), 401);
  });

  it('should fail with an unknown id', async () => {
    expectErrorEnvelope(await other.api.post(`/api/v1/content/${UNKNOWN}/reactions`), 404);
  });

  it('should fail with 404 for unpublished content of another user until it is published', async () => {
    const draft = await createContent(owner);
    expectErrorEnvelope(await other.api.post(`/api/v1/content/${draft}/reactions`), 404);
    await markCompleted(server, draft);
    expect((await other.api.post(`/api/v1/content/${draft}/reactions`)).status).toBe(200);
  });

  it('should like idempotently, unlike, and count', async () => {
    const id = await publish(server, owner);
    const events: boolean[] = [];
    const stop = server.service.app.events.subscribe('reaction.changed', (e) => {
      if (e.contentId === id) events.push(e.reacted);
    });
    expect((await other.api.post(`/api/v1/content/${id}/reactions`)).body.data).toEqual({ reacted: true, reaction_count: 1 });
    expect((await other.api.post(`/api/v1/content/${id}/reactions`)).body.data).toEqual({ reacted: true, reaction_count: 1 });
    expect((await admin.api.post(`/api/v1/content/${id}/reactions`)).body.data).toEqual({ reacted: true, reaction_count: 2 });
    expect((await other.api.delete(`/api/v1/content/${id}/reactions`)).body.data).toEqual({ reacted: false, reaction_count: 1 });
    expect((await other.api.delete(`/api/v1/content/${id}/reactions`)).body.data).toEqual({ reacted: false, reaction_count: 1 });
    stop();
    expect(events).toEqual([true, true, false]);
    const completed = await anonymous.get(`${CONTENT}/completed?per_page=100`);
    expect(completed.body.data.items.find((i: { id: string }) => i.id === id).reaction_count).toBe(1);
  });
});
