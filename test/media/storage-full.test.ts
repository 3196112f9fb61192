// A media storage that runs out of room or turns read-only (CONTRACT §14, §19), on a REAL tmpfs
// mounted as MEDIA_DIR (skipped, saying so, where this run may not mount one):
// - a video processed while only a few hundred KB are left (the original fits, its rendition does
//   not) ends `failed` with `video.error.storage_unavailable`, shown to the owner without tool
//   output, with nothing of the run left on the storage or served; with room, the same video
//   completes;
// - every upload path, the avatar too, answers 507 `media.error.storage_unavailable` on a full and
//   on a read-only storage, leaving no partial file and no temporary one.
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { UPLOAD, contentVideo, createContent, form, makeImage, makePdf, scratchDir, tmpUploadLeftovers, waitForJobEnd } from './media-helpers.js';
import { canMountTmpfs, filesUnder, mountTinyStorage, type TinyStorage } from './tiny-storage.js';

const run = promisify(execFile);
const scratch = scratchDir();
const mountable = canMountTmpfs();
if (!mountable) console.warn('storage-full.test.ts: SKIPPED: this run may not mount a tmpfs (needs root and a kernel that allows it)');

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** 6 s of 1280x720 with sound, ~0.5 MB: its rendition (360p + 720p) takes ~2.4 MB. */
async function makeClip(file: string): Promise<Buffer> {
  await run('ffmpeg', [
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=1280x720:rate=25',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440',
    '-t',
    '6',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-b:v',
    '600k',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    file,
  ]);
  return fs.readFileSync(file);
}

/** A server, for the enclosing describe block, whose MEDIA_DIR is a tmpfs of its own of `size`. */
function serverOnTinyStorage(size: string, env: Record<string, string>): { current: { server: TestServer; storage: TinyStorage } } {
  let storage: TinyStorage | undefined;
  beforeAll(() => {
    storage = mountTinyStorage(size);
  });
  // Registered before the server's hooks: runs after the server is closed.
  afterAll(() => storage?.remove());
  const booted = useTestServer(() => ({ MEDIA_DIR: storage!.dir, ...env }));
  return {
    get current() {
      return { server: booted.current, storage: storage! };
    },
  };
}

const PAGE = 4096;
const pages = (bytes: number) => Math.ceil(bytes / PAGE) * PAGE;

describe.skipIf(!mountable)('video processing on a media storage with a few hundred KB left', () => {
  const booted = serverOnTinyStorage('8m', { VIDEO_WORKERS: '1' });
  let server: TestServer;
  let storage: TinyStorage;
  let owner: TestUser;
  let clip: Buffer;

  beforeAll(async () => {
    ({ server, storage } = booted.current);
    owner = await registerAndLogin(server);
    clip = await makeClip(path.join(scratch, 'tour.mp4'));
  }, 60_000);

  const upload = (contentId: string) =>
    owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: clip, filename: 'tour.mp4', type: 'video/mp4' }]) });

  const cases = [
    [1600 * 1024, 'part of the rendition fits'],
    [600 * 1024, 'the thumbnail fits but hardly any of the rendition'],
    [8 * 1024, 'not even the thumbnail fits'],
  ] as const;
  for (const [left, when] of cases) {
    it(`should fail with video.error.storage_unavailable and leave nothing of the run when ${when}`, { timeout: 120_000 }, async () => {
      const contentId = await createContent(owner);
      storage.leave(pages(clip.length) + left);
      const freeBefore = storage.free();
      try {
        expect((await upload(contentId)).status).toBe(200);
        const job = await waitForJobEnd(server.service, contentId);
        expect(job, job.last_error ?? '').toMatchObject({ status: 'failed', attempts: 1 });

        const detail = await owner.api.get(`/api/v1/content/${contentId}`);
        expect(detail.status).toBe(200);
        expect(detail.body.data.status).toBe('failed');
        const { video } = detail.body.data;
        expect(video).toMatchObject({ status: 'failed', error_code: 'video.error.storage_unavailable' });
        expect(video.error_message).toMatch(/storage/);
        expect(video.error_message).not.toMatch(/ffmpeg|No space|device|\.ts|m3u8|\|/i);
        expect(video.playlist_url ?? null).toBeNull();

        // Only the original is left of the item; what the run wrote is gone and its room freed.
        expect(filesUnder(storage.dir).filter((f) => f.file.startsWith(`content/${contentId}/`))).toEqual([
          { file: `content/${contentId}/original.mp4`, size: clip.length },
        ]);
        expect(storage.free()).toBeGreaterThanOrEqual(freeBefore - pages(clip.length) - 4 * PAGE);
        for (const file of ['hls/master.m3u8', 'hls/360p/index.m3u8', 'hls/720p/index.m3u8']) {
          expect((await fetch(`${server.url}/media/content/${contentId}/${file}`)).status).toBe(404);
        }
        expect((await contentVideo(server.service, contentId)).video.playlist_path ?? null).toBeNull();
      } finally {
        storage.unfill();
      }
    });
  }

  it('should process the same video to completion once there is room', { timeout: 120_000 }, async () => {
    const contentId = await createContent(owner);
    expect((await upload(contentId)).status).toBe(200);
    expect(await waitForJobEnd(server.service, contentId)).toMatchObject({ status: 'completed', last_error: null });
    const master = await fetch(`${server.url}/media/content/${contentId}/hls/master.m3u8`);
    expect(master.status).toBe(200);
    expect(await master.text()).toMatch(/^#EXTM3U[\s\S]*360p\/index\.m3u8[\s\S]*720p\/index\.m3u8/);
    const written = filesUnder(path.join(storage.dir, 'content', contentId));
    expect(written.filter((f) => f.size === 0)).toEqual([]);
    expect(written.filter((f) => f.file.endsWith('.ts')).length).toBeGreaterThanOrEqual(4);
  });
});

describe.skipIf(!mountable)('uploads on a media storage that is full, then read-only', () => {
  const booted = serverOnTinyStorage('2m', { VIDEO_WORKERS: '0' });
  let server: TestServer;
  let storage: TinyStorage;
  let owner: TestUser;
  let png: Buffer;
  let clip: Buffer;

  beforeAll(async () => {
    ({ server, storage } = booted.current);
    owner = await registerAndLogin(server);
    png = await makeImage('png', 300, 200);
    clip = await makeClip(path.join(scratch, 'upload.mp4'));
  }, 60_000);

  const putAvatar = () => {
    const body = new FormData();
    body.append('avatar', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'me.png');
    return owner.api.request('PUT', '/auth/api/v1/user/avatar', { rawBody: body, headers: { 'x-user-id': owner.userId, 'x-user-username': owner.username } });
  };

  /** Every upload path, each answered with the storage's 507. */
  async function expectEveryUploadRefused(contentId: string): Promise<void> {
    const answers = {
      avatar: await putAvatar(),
      image: await owner.api.request('POST', UPLOAD, {
        rawBody: form([
          { name: 'type', value: 'image' },
          { name: 'file', value: png, filename: 'a.png' },
        ]),
      }),
      document: await owner.api.request('POST', UPLOAD, {
        rawBody: form([
          { name: 'type', value: 'document' },
          { name: 'file', value: makePdf(), filename: 'plan.pdf' },
        ]),
      }),
      contentImages: await owner.api.request('POST', `${UPLOAD}?id=${contentId}&topic-key=video_images_url`, {
        rawBody: form([{ name: 'files', value: png, filename: 'a.png' }]),
      }),
      mainVideo: await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: clip, filename: 'tour.mp4' }]) }),
    };
    for (const [name, res] of Object.entries(answers)) {
      expect({ name, code: expectErrorEnvelope(res, 507).error_code }).toEqual({ name, code: 'media.error.storage_unavailable' });
    }
  }

  it('should answer 507 to every upload, the avatar too, when it is full, and leave no partial file', async () => {
    const contentId = await createContent(owner);
    const before = filesUnder(storage.dir);
    storage.leave(0);
    try {
      await expectEveryUploadRefused(contentId);
      expect(filesUnder(storage.dir)).toEqual(before);
    } finally {
      storage.unfill();
    }
    expect(await tmpUploadLeftovers(server.service)).toEqual([]);
    const me = await owner.api.get('/auth/api/v1/user/me');
    expect(me.body.data?.picture ?? null).toBeNull();
    // With room again the avatar is taken.
    expect((await putAvatar()).status).toBe(200);
  });

  it('should answer 507 to every upload, the avatar too, when it is read-only', async () => {
    const contentId = await createContent(owner);
    const before = filesUnder(storage.dir);
    storage.remount('ro');
    try {
      await expectEveryUploadRefused(contentId);
    } finally {
      storage.remount('rw');
    }
    expect(filesUnder(storage.dir)).toEqual(before);
    expect(await tmpUploadLeftovers(server.service)).toEqual([]);
  });
});
