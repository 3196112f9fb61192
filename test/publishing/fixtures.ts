// Fixtures for the publishing tests: content items with an original video file on disk, made
// through the content endpoint when it exists and finished with SQL (the video pipeline is another
// engineer's), and the OAuth round trip through the platform stand-in.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { TestServer } from '../helpers/server.js';
import type { ApiResponse, TestUser } from '../helpers/api.js';
import { afterAll, beforeAll } from 'vitest';
import { useTestServer, type BootedServer } from '../helpers/fixture.js';
import { PlatformStandIn } from './platform-stand-in.js';
import { announceContentChanged } from '../helpers/behind-the-service.js';

/**
 * The local platform stand-in and a server pointed at it, for the enclosing file: the stand-in
 * starts first (the server is given its address) and stops after the server.
 */
export function usePublishingServer(env: Record<string, string> = {}): { standIn: PlatformStandIn; booted: BootedServer } {
  const standIn = new PlatformStandIn();
  beforeAll(async () => {
    await standIn.start();
  });
  afterAll(() => standIn.stop());
  return { standIn, booted: useTestServer(() => ({ ...standIn.env(), ...env })) };
}

export const rows = <T = Record<string, any>>(server: TestServer, query: SQL) => server.service.app.database.rows<T>(query);

export interface ContentFixture {
  id: string;
  bytes: Buffer;
  filePath: string;
}

/** A content item of `user`; `completed` ones get an original video file of `size` random bytes. */
export async function createContent(
  server: TestServer,
  user: TestUser,
  options: { status?: 'completed' | 'processing' | 'failed'; size?: number; withFile?: boolean } = {},
): Promise<ContentFixture> {
  const status = options.status ?? 'completed';
  const size = options.size ?? 256 * 1024 + 13;
  let id: string | undefined;
  const res = await user.api.post('/content/api/v1/content', {
    price: 2500000000,
    unit_price: 'VND',
    area: 72.5,
    unit_area: 'm2',
    video: { original_name: 'tour.mp4', size },
    real_estate_info: { legal_certificates: 'pink_book', apartment_type: 'apartment', project_status: 'completed' },
    content_info: [{ lang: 'en', project_name: 'Riverside apartment' }],
  });
  if (res.status === 201 || res.status === 200) {
    id = res.body?.data?.id ?? res.body?.data?.content_id ?? res.body?.id;
    if (typeof id !== 'string') throw new Error(`content creation answered without an id: ${res.text}`);
  } else if (res.status === 404 && res.body?.error_code?.startsWith('route.')) {
    id = (await rows<{ id: string }>(server, sql`select gen_random_uuid()::text as id`))[0].id;
    await rows(
      server,
      sql`
      insert into contents (id, uploader_id, status, price, unit_price, area, unit_area, video)
      values (${id}, ${user.userId}, 'processing', 2500000000, 'VND', 72.5, 'm2',
              ${JSON.stringify({ original_name: 'tour.mp4', size, resolution: null, duration: null, status: 'pending', original_path: null, playlist_path: null, thumbnail_path: null, error: null })}::jsonb)`,
    );
  } else {
    throw new Error(`content creation failed: ${res.status} ${res.text}`);
  }

  const bytes = randomBytes(size);
  const relative = `videos/${id}/original.mp4`;
  const filePath = path.join(server.service.config.mediaDir, relative);
  if (options.withFile !== false) {
    fs.mkdirSync(path.dirname(filePath), { recursive: true });
    fs.writeFileSync(filePath, bytes);
  }
  const videoStatus = status === 'completed' ? 'completed' : status === 'failed' ? 'failed' : 'processing';
  await rows(
    server,
    sql`
    update contents set status = ${status},
      video = video || ${JSON.stringify({ status: videoStatus, original_path: relative, size })}::jsonb, updated_at = now()
    where id = ${id}::uuid`,
  );
  await announceContentChanged(server, id);
  return { id, bytes, filePath };
}

/** GET a URL the platform redirected the browser to, on this test server. */
export async function followRedirect(server: TestServer, location: URL): Promise<ApiResponse> {
  const res = await fetch(`${server.url}${location.pathname}${location.search}`);
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** What the platform hands our callback after consent: the code and the state. */
export function grantOf(location: URL): { code: string; state: string } {
  return { code: location.searchParams.get('code')!, state: location.searchParams.get('state')! };
}

/** Full linking: auth URL → consent at the stand-in → our callback → POST /link as `user`. */
export async function linkAccount(server: TestServer, standIn: PlatformStandIn, user: TestUser, platform: 'tiktok' | 'youtube'): Promise<ApiResponse> {
  const auth = await user.api.get(`/content/api/v1/${platform}/auth`);
  if (auth.status !== 200) throw new Error(`auth URL failed: ${auth.status} ${auth.text}`);
  const location = await standIn.consent(auth.body.data.url);
  const callback = await followRedirect(server, location);
  if (callback.status !== 200) throw new Error(`callback failed: ${callback.status} ${callback.text}`);
  return user.api.post(`/content/api/v1/${platform}/link`, { code: callback.body.data.code, state: callback.body.data.state });
}
