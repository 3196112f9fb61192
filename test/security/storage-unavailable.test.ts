// Storage that is full or read-only (CONTRACT §19, issue 24 finding 7), with MEDIA_DIR on a tiny
// tmpfs the test mounts (it needs root, as the test machines run): an upload answers 507
// `media.error.storage_unavailable`, leaves no half-written file and the item as it was (never
// `processing` without a job); a processing job that runs out of space ends `failed` with
// `video.error_code` / `video.error_message` in the owner's detail and in `video:failed`, and no
// ffmpeg output reaches the client.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootServer, type TestServer } from '../helpers/server.js';
import { expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, connect, nextEvent } from '../realtime/socket-client.js';
import {
  UPLOAD,
  contentVideo,
  createContent,
  form,
  latestJob,
  makeImage,
  makePdf,
  makeVideo,
  scratchDir,
  tmpUploadLeftovers,
  waitForJobEnd,
} from '../media/media-helpers.js';
import { startVideoWorkers } from '../../jobs/video-worker.js';

/** Mounting needs root (and a kernel that lets the container mount tmpfs). */
function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmdirSync(probe);
  }
}

const mountable = canMount();
const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-small-media-'));
const scratch = scratchDir();
const remount = (mode: 'ro' | 'rw') => execFileSync('mount', ['-o', `remount,${mode}`, mediaDir], { stdio: 'ignore' });
const filler = path.join(mediaDir, 'filler');

/** Writes into the media storage until it is full. */
function fillStorage(): void {
  const fd = fs.openSync(filler, 'w');
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) fs.writeSync(fd, block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    fs.closeSync(fd);
  }
}

/** Every file under a directory (relative paths). */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

describe.skipIf(!mountable)('a media storage that is full or read-only', () => {
  let server: TestServer;
  let owner: TestUser;
  let clip: Buffer;

  beforeAll(async () => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mediaDir], { stdio: 'ignore' });
    // No worker: the processing test starts one once the storage is full.
    server = await bootServer({ MEDIA_DIR: mediaDir, VIDEO_WORKERS: '0' });
    owner = await registerAndLogin(server);
    clip = await makeVideo(path.join(scratch, 'clip.mp4'), { seconds: 2, size: '320x240' });
  }, 120_000);

  afterAll(async () => {
    closeAll();
    await server?.close();
    if (mountable) execFileSync('umount', ['-l', mediaDir], { stdio: 'ignore' });
    fs.rmSync(mediaDir, { recursive: true, force: true });
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('should answer 507 to every upload form while it is read-only, and leave the item as it was', async () => {
    const contentId = await createContent(owner);
    const before = await contentVideo(server.service, contentId);
    remount('ro');
    try {
      const general = await owner.api.request('POST', UPLOAD, {
        rawBody: form([
          { name: 'type', value: 'document' },
          { name: 'file', value: makePdf(), filename: 'plan.pdf' },
        ]),
      });
      expect(expectErrorEnvelope(general, 507).error_code).toBe('media.error.storage_unavailable');
      const image = await owner.api.request('POST', UPLOAD, {
        rawBody: form([
          { name: 'type', value: 'image' },
          { name: 'file', value: await makeImage('png'), filename: 'a.png' },
        ]),
      });
      expect(expectErrorEnvelope(image, 507).error_code).toBe('media.error.storage_unavailable');
      const video = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: clip, filename: 'tour.mp4' }]) });
      expect(expectErrorEnvelope(video, 507).error_code).toBe('media.error.storage_unavailable');
      const images = await owner.api.request('POST', `${UPLOAD}?id=${contentId}&topic-key=video_images_url`, {
        rawBody: form([{ name: 'files', value: await makeImage('jpeg'), filename: 'a.jpg' }]),
      });
      expect(expectErrorEnvelope(images, 507).error_code).toBe('media.error.storage_unavailable');
    } finally {
      remount('rw');
    }
    expect(await contentVideo(server.service, contentId)).toEqual(before);
    expect(await latestJob(server.service, contentId)).toBeNull();
    const detail = await owner.api.get(`/api/v1/content/${contentId}`);
    expect(detail.body.data.images).toEqual([]);
    expect(await tmpUploadLeftovers(server.service)).toEqual([]);
    // The node still serves, and the storage takes uploads again once it can.
    const again = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'document' },
        { name: 'file', value: makePdf(), filename: 'plan.pdf' },
      ]),
    });
    expect(again.status, again.text).toBe(201);
  });

  it('should answer 507 when it is full, with no half-written file and the item unchanged', async () => {
    const contentId = await createContent(owner);
    const before = await contentVideo(server.service, contentId);
    const filesBefore = filesUnder(mediaDir);
    fillStorage();
    try {
      const video = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: clip, filename: 'tour.mp4' }]) });
      expect(expectErrorEnvelope(video, 507).error_code).toBe('media.error.storage_unavailable');
      const general = await owner.api.request('POST', UPLOAD, {
        rawBody: form([
          { name: 'type', value: 'video' },
          { name: 'file', value: clip, filename: 'tour.mp4' },
        ]),
      });
      expect(expectErrorEnvelope(general, 507).error_code).toBe('media.error.storage_unavailable');
      expect(filesUnder(mediaDir).filter((f) => f !== 'filler')).toEqual(filesBefore);
    } finally {
      fs.rmSync(filler, { force: true });
    }
    expect(await contentVideo(server.service, contentId)).toEqual(before);
    expect(await latestJob(server.service, contentId)).toBeNull();
    expect(await tmpUploadLeftovers(server.service)).toEqual([]);
  });

  it('should fail a processing job that runs out of space, with a clean reason in the detail and in video:failed', { timeout: 120_000 }, async () => {
    const contentId = await createContent(owner);
    const uploaded = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: clip, filename: 'tour.mp4' }]) });
    expect(uploaded.status, uploaded.text).toBe(200);
    const socket = await connect(server.url, '/processing', owner.token, 'websocket');
    const failedEvent = nextEvent<any>(socket, 'video:failed', (p) => p.contentId === contentId, 100_000);
    fillStorage();
    const { app, services } = server.service;
    const workers = startVideoWorkers({ ...app, config: { ...app.config, VIDEO_WORKERS: 1 } }, services);
    try {
      const job = await waitForJobEnd(server.service, contentId);
      expect(job.status).toBe('failed');
      expect(job.attempts).toBe(1);
      const event = await failedEvent;
      expect(event.error_code).toBe('video.error.storage_unavailable');
      const detail = await owner.api.get(`/api/v1/content/${contentId}`);
      expect(detail.status).toBe(200);
      expect(detail.body.data.status).toBe('failed');
      expect(detail.body.data.video).toMatchObject({ status: 'failed', error_code: 'video.error.storage_unavailable', error_message: event.message });
      for (const text of [event.message, detail.body.data.video.error_message]) {
        expect(text).toMatch(/storage/);
        expect(text).not.toMatch(/ffmpeg|No space left|\||Error|mediaDir/i);
        expect(text).not.toContain(mediaDir);
      }
    } finally {
      await workers.stop(5_000);
      fs.rmSync(filler, { force: true });
    }
  });
});
