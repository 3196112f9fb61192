// Resumable uploads and their uploader's budget (CONTRACT §24): an upload counts once against the
// upload limit of SPEC §8, at its creation, while its HEAD and PATCH requests count against no
// limit; and the uploader's /processing socket hears `upload:progress` as chunks land, at most 4
// a second per upload, the last one carrying the full length.
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { registerAndLogin } from '../helpers/api.js';
import { closeAll, connect, type Transport } from '../realtime/socket-client.js';
import { createContent, makeImage, makeVideo, scratchDir } from './media-helpers.js';
import { RESUMABLE, createUpload, headUpload, patchUpload, uploadWithClient } from './resumable-helpers.js';

const scratch = scratchDir();
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('upload rate limit (RATE_LIMIT_SCALE=1: 5 uploads and 100 requests a minute)', () => {
  const booted = useTestServer({ RATE_LIMIT_SCALE: '1', VIDEO_WORKERS: '0' });

  it('should count each upload once, at creation: 5 uploads of many chunks pass, the 6th creation gets 429', { timeout: 120_000 }, async () => {
    // One user only: the auth endpoints allow 5 requests a minute per address at this scale.
    const owner = await registerAndLogin(booted.current);
    const contentId = await createContent(owner);
    const png = await makeImage('png', 64, 48);
    const chunk = Math.ceil(png.length / 25);
    const image = { content_id: contentId, topic_key: 'video_images_url', filename: 'room.png' };
    const remaining: string[] = [];
    // 5 × (1 creation + 25 PATCHes + 25 HEADs) = 255 requests: more than the general limit too.
    for (let upload = 0; upload < 5; upload++) {
      const created = await createUpload(booted.url, owner.token, png.length, image);
      expect(created.status).toBe(201);
      remaining.push(created.headers.get('x-ratelimit-remaining') ?? '');
      for (let offset = 0; offset < png.length; offset += chunk) {
        const head = await headUpload(booted.url, owner.token, created.location);
        expect(head.headers.get('upload-offset')).toBe(String(offset));
        expect((await patchUpload(booted.url, owner.token, created.location, offset, png.subarray(offset, offset + chunk))).status).toBe(204);
      }
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);

    const sixth = await createUpload(booted.url, owner.token, png.length, image);
    expect(sixth.status).toBe(429);
    expect(sixth.body).toMatchObject({ success: false, error_code: 'rate_limit.error.exceeded' });
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(sixth.headers.get('tus-resumable')).toBe('1.0.0');
  });
});

describe('upload:progress on /processing', () => {
  const booted = useTestServer({ VIDEO_WORKERS: '0' });
  afterEach(() => closeAll());

  it.each(['websocket', 'polling'] as Transport[])(
    'should reach the uploader over %s as chunks land, at most 4 a second',
    { timeout: 120_000 },
    async (transport) => {
      const [owner, other] = await Promise.all([registerAndLogin(booted.current), registerAndLogin(booted.current)]);
      const contentId = await createContent(owner);
      const video = await makeVideo(path.join(scratch, `progress-${transport}.mp4`), { seconds: 4 });
      const mine = await connect(booted.url, '/processing', owner.token, transport);
      const theirs = await connect(booted.url, '/processing', other.token, transport);
      const events: { contentId: string; offset: number; length: number; at: number }[] = [];
      const overheard: unknown[] = [];
      mine.on('upload:progress', (p) => events.push({ ...p, at: performance.now() }));
      theirs.on('upload:progress', (p) => overheard.push(p));

      // Many small chunks, sent as fast as the client can.
      const chunkSize = Math.ceil(video.length / 80);
      const { requests } = await uploadWithClient(booted.url + RESUMABLE, owner.token, video, { content_id: contentId, filename: 'tour.mp4' }, { chunkSize });
      const patches = requests.filter((r) => r.method === 'PATCH').length;
      // The last event (the full length) always comes.
      for (;;) {
        if (events.at(-1)?.offset === video.length) break;
        await new Promise((r) => setTimeout(r, 50));
      }

      expect(events.every((e) => e.contentId === contentId && e.length === video.length)).toBe(true);
      const offsets = events.map((e) => e.offset);
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
      // Throttled: far fewer events than chunks, and no more than 4 a second over the transfer
      // (one more for the first, which goes at once; one for the delivery of two at the same time).
      expect(events.length).toBeLessThan(patches);
      const seconds = (events.at(-1)!.at - events[0].at) / 1000;
      expect(events.length).toBeLessThanOrEqual(Math.floor(seconds * 4) + 2);
      expect(overheard).toEqual([]);
    },
  );
});
