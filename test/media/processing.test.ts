// Video processing over the real service: a real clip made with ffmpeg is uploaded to a content
// item, processed by the durable worker into a thumbnail and HLS, and served; a file that only
// looks like a video ends `failed` with a reason.
import fs from 'node:fs';
import path from 'node:path';
import { storedMedia } from '../helpers/stored-media.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { connect, nextEvent } from '../realtime/socket-client.js';
import { UPLOAD, contentVideo, createContent, fakeMp4, form, latestJob, makeVideo, onServer, scratchDir, waitForJobEnd } from './media-helpers.js';

const booted = useTestServer({ VIDEO_WORKERS: '1' });
let server: TestServer;
let owner: TestUser;
const scratch = scratchDir();

beforeAll(async () => {
  server = booted.current;
  owner = await registerAndLogin(server);
});
afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('video processing', () => {
  it('should fail a file that only looks like a video, with a reason, and say so', { timeout: 60_000 }, async () => {
    const contentId = await createContent(owner);
    const failed = new Promise<any>((resolve) => {
      const off = server.service.app.events.subscribe('video.failed', (p) => {
        if (p.contentId === contentId) {
          off();
          resolve(p);
        }
      });
    });
    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: fakeMp4(), filename: 'fake.mp4' }]) });
    expect(res.status).toBe(200);
    const job = await waitForJobEnd(server.service, contentId);
    expect(job.status).toBe('failed');
    expect(job.attempts).toBe(1); // not retried: the file itself is bad
    expect(job.last_error).toMatch(/not a decodable video/);
    const { status, video } = await contentVideo(server.service, contentId);
    expect(status).toBe('failed');
    expect(video).toMatchObject({ status: 'failed', error: expect.stringMatching(/not a decodable video/), playlist_path: null });
    expect(video.error).not.toContain(server.service.config.mediaDir);
    const event = await failed;
    expect(event).toMatchObject({ uploaderId: owner.userId, error_code: 'video.error.invalid_video' });
    expect(await latestJob(server.service, contentId)).toMatchObject({ status: 'failed' });
  });

  it('should turn an uploaded clip into a thumbnail and a playable HLS rendition', { timeout: 120_000 }, async () => {
    const clip = await makeVideo(path.join(scratch, 'tour.mp4'), { seconds: 3, size: '320x240' });
    const contentId = await createContent(owner);
    const progress: { stage: string; percent: number }[] = [];
    server.service.app.events.subscribe('video.progress', (p) => {
      if (p.contentId === contentId) progress.push({ stage: p.stage, percent: p.percent });
    });
    const socket = await connect(server.url, '/processing', owner.token, 'websocket');
    const completedEvent = nextEvent<any>(socket, 'video:completed', (p) => p.contentId === contentId, 110_000);

    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, {
      rawBody: form([{ name: 'files', value: clip, filename: 'tour.mp4', type: 'video/mp4' }]),
    });
    expect(res.status).toBe(200);

    const job = await waitForJobEnd(server.service, contentId);
    expect(job).toMatchObject({ status: 'completed', attempts: 1, last_error: null });
    const { status, video } = await contentVideo(server.service, contentId);
    expect(status).toBe('completed');
    expect(video).toMatchObject({
      status: 'completed',
      resolution: '320x240',
      size: clip.length,
      original_path: `content/${contentId}/original.mp4`,
      playlist_path: `content/${contentId}/hls/master.m3u8`,
      thumbnail_path: expect.stringMatching(new RegExp(`^content/${contentId}/thumbnail-[0-9a-f]+\\.jpg$`)),
      error: null,
    });
    expect(video.duration).toBeGreaterThan(2.9);
    expect(video.duration).toBeLessThan(3.2);

    // The realtime event carries the SPEC 2.2 video object with URLs.
    const event = await completedEvent;
    socket.close();
    expect(event.video).toMatchObject({ status: 'completed', resolution: '320x240', duration: video.duration });
    expect(event.video.url).toMatch(/\/media\/content\/.+\/hls\/master\.m3u8$/);
    expect(event.video.content_url).toMatch(/\/original\.mp4$/);
    expect(progress.map((p) => p.stage)).toEqual(expect.arrayContaining(['probing', 'thumbnail', 'transcoding', 'finalizing']));
    expect(progress[progress.length - 1]).toEqual({ stage: 'finalizing', percent: 100 });

    // The content detail shows the processed video.
    const detail = await owner.api.get(`/api/v1/content/${contentId}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data.video).toMatchObject({
      duration: video.duration,
      resolution: '320x240',
      url: event.video.url,
      thumbnail_url: event.video.thumbnail_url,
    });

    // The master playlist, a variant playlist and a segment are served and playable.
    const master = await fetch(onServer(server.url, event.video.url));
    expect(master.status).toBe(200);
    expect(master.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    const masterText = await master.text();
    expect(masterText).toMatch(/^#EXTM3U/);
    expect(masterText).toMatch(/RESOLUTION=320x240/);
    const variantRel = masterText
      .split('\n')
      .find((l) => l.trim().endsWith('.m3u8'))!
      .trim();
    const variantUrl = new URL(variantRel, onServer(server.url, event.video.url)).toString();
    const variant = await (await fetch(variantUrl)).text();
    expect(variant).toContain('#EXT-X-ENDLIST');
    const segments = variant.split('\n').filter((l) => l.trim().endsWith('.ts'));
    expect(segments.length).toBeGreaterThanOrEqual(1);
    const segment = await fetch(new URL(segments[0].trim(), variantUrl));
    expect(segment.status).toBe(200);
    expect(segment.headers.get('content-type')).toBe('video/mp2t');
    const bytes = Buffer.from(await segment.arrayBuffer());
    expect(bytes[0]).toBe(0x47); // MPEG-TS sync byte
    const segmentFile = path.join(scratch, 'seg.ts');
    fs.writeFileSync(segmentFile, bytes);
    // The segment decodes: H.264 video and AAC audio.
    const { execFileSync } = await import('node:child_process');
    const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_streams', '-of', 'json', segmentFile]).toString());
    expect(probe.streams.map((s: any) => s.codec_name).sort()).toEqual(['aac', 'h264']);

    const thumb = await fetch(onServer(server.url, event.video.thumbnail_url));
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    expect(
      Buffer.from(await thumb.arrayBuffer())
        .subarray(0, 2)
        .toString('hex'),
    ).toBe('ffd8');

    // No work directory is left behind.
    expect(storedMedia(server.service).workDirsLeft(contentId)).toEqual([]);
  });

  it('should process a 720p video without audio into a 360p + 720p ladder', { timeout: 120_000 }, async () => {
    const clip = await makeVideo(path.join(scratch, 'silent.mp4'), { seconds: 1, size: '1280x720', audio: false });
    const contentId = await createContent(owner);
    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: clip, filename: 'silent.mp4' }]) });
    expect(res.status).toBe(200);
    expect((await waitForJobEnd(server.service, contentId)).status).toBe('completed');
    const { video } = await contentVideo(server.service, contentId);
    expect(video.resolution).toBe('1280x720');
    const master = (await storedMedia(server.service).read(video.playlist_path)).toString('utf8');
    expect(master).toContain('RESOLUTION=640x360');
    expect(master).toContain('RESOLUTION=1280x720');
    expect(master).not.toContain('1920x1080');
    expect(master).not.toContain('mp4a'); // no audio codec announced
  });
});
