// Hostile video input (CONTRACT §19) over the real service: a DASH manifest posing as an MP4 that
// names another file of the server, a manifest declaring an absurd duration, videos beyond the
// duration and resolution limits, and a job that runs past its time limit. Both upload forms.
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { storedMedia } from '../helpers/stored-media.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { connect, nextEvent } from '../realtime/socket-client.js';
import { UPLOAD, contentVideo, createContent, form, latestJob, makeVideo, manifestPosingAsMp4, scratchDir, waitForJobEnd } from './media-helpers.js';

const run = promisify(execFile);
const scratch = scratchDir();

/** A clip of `size` made of `frames` frames (quick even at large sizes). */
async function makeFrames(file: string, size: string, frames: number): Promise<Buffer> {
  await run('ffmpeg', [
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `color=c=blue:size=${size}:rate=5`,
    '-frames:v',
    String(frames),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    file,
  ]);
  return fs.readFileSync(file);
}

async function makeWebm(file: string, seconds: number, size: string): Promise<Buffer> {
  await run('ffmpeg', [
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=${size}:rate=10`,
    '-t',
    String(seconds),
    '-c:v',
    'libvpx',
    '-b:v',
    '200k',
    '-deadline',
    'realtime',
    '-cpu-used',
    '8',
    file,
  ]);
  return fs.readFileSync(file);
}

/** Resolves with the next video.failed event of `contentId` on the server's event bus. */
function nextFailure(server: TestServer, contentId: string): Promise<{ error_code: string; message: string }> {
  return new Promise((resolve) => {
    const off = server.service.app.events.subscribe('video.failed', (p) => {
      if (p.contentId === contentId) {
        off();
        resolve(p);
      }
    });
  });
}

async function uploadGeneral(user: TestUser, video: Buffer, filename: string) {
  return user.api.request('POST', UPLOAD, {
    rawBody: form([
      { name: 'type', value: 'video' },
      { name: 'file', value: video, filename, type: 'video/mp4' },
    ]),
  });
}

async function uploadMain(user: TestUser, contentId: string, video: Buffer, filename: string) {
  return user.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: video, filename, type: 'video/mp4' }]) });
}

/** The item's stored HLS files (none after a failed run: nothing of it is kept). */
const hlsFiles = (server: TestServer, contentId: string) => storedMedia(server.service).list(`content/${contentId}/hls`);

afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('hostile video input (MAX_VIDEO_SECONDS=3)', () => {
  const booted = useTestServer({ VIDEO_WORKERS: '1', MAX_VIDEO_SECONDS: '3' });
  let server: TestServer;
  let owner: TestUser;
  let target: string;

  beforeAll(async () => {
    server = booted.current;
    owner = await registerAndLogin(server);
    // A real video on the server that the manifests point at.
    target = path.join(scratch, 'other-file.mp4');
    await makeVideo(target, { seconds: 2, size: '320x240', audio: false });
  }, 60_000);

  it('should fail with a DASH manifest posing as an MP4 in the general form (it never reads the file it names)', async () => {
    const res = await uploadGeneral(owner, manifestPosingAsMp4(target), 'tour.mp4');
    const err = expectErrorEnvelope(res, 400);
    expect(err.error_code).toBe('file.error.unreadable');
    expect(err.details).toEqual({ field: 'file', constraint: 'a readable video' });
    expect(res.text).not.toContain('320');
  });

  it('should fail with a manifest declaring a 36,000,000 s duration in the general form', async () => {
    const res = await uploadGeneral(owner, manifestPosingAsMp4(target, 'PT10000H'), 'long.mp4');
    expect(expectErrorEnvelope(res, 400).error_code).toBe('file.error.unreadable');
  });

  it('should fail a DASH manifest posing as the main video, without rendering the file it names', { timeout: 60_000 }, async () => {
    for (const duration of ['PT2S', 'PT10000H']) {
      const contentId = await createContent(owner);
      const failed = nextFailure(server, contentId);
      expect((await uploadMain(owner, contentId, manifestPosingAsMp4(target, duration), 'tour.mp4')).status).toBe(200);
      const job = await waitForJobEnd(server.service, contentId);
      expect(job).toMatchObject({ status: 'failed', attempts: 1 });
      expect(job.last_error).toMatch(/^not a decodable video: not a readable MP4\/MOV or Matroska\/WebM file$/);
      const { status, video } = await contentVideo(server.service, contentId);
      expect(status).toBe('failed');
      expect(video).toMatchObject({ status: 'failed', playlist_path: null });
      expect(video.resolution ?? null).toBeNull();
      expect(await hlsFiles(server, contentId)).toEqual([]);
      expect(await failed).toMatchObject({ error_code: 'video.error.invalid_video' });
    }
  });

  it('should fail with a video longer than MAX_VIDEO_SECONDS: 400 in the general form, a failed job as main video', { timeout: 60_000 }, async () => {
    const long = await makeVideo(path.join(scratch, 'long.mp4'), { seconds: 5, size: '64x48', audio: false });
    const res = await uploadGeneral(owner, long, 'long.mp4');
    const err = expectErrorEnvelope(res, 400);
    expect(err.error_code).toBe('file.error.video_too_long');
    expect(err.details).toEqual({ field: 'file', constraint: 'at most 3 s' });

    const contentId = await createContent(owner);
    const failed = nextFailure(server, contentId);
    expect((await uploadMain(owner, contentId, long, 'long.mp4')).status).toBe(200);
    const job = await waitForJobEnd(server.service, contentId);
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    expect(job.last_error).toMatch(/^the video lasts 5(\.\d+)? s; at most 3 s are accepted$/);
    expect((await contentVideo(server.service, contentId)).video).toMatchObject({ status: 'failed', error: job.last_error });
    expect(await hlsFiles(server, contentId)).toEqual([]);
    expect(await failed).toMatchObject({ error_code: 'video.error.too_long', message: job.last_error });
  });

  it('should fail with a video larger than 3840x2160 (either orientation): 400 general, failed job as main video', { timeout: 60_000 }, async () => {
    const wide = await makeFrames(path.join(scratch, 'wide.mp4'), '4000x2200', 1);
    const res = await uploadGeneral(owner, wide, 'wide.mp4');
    const err = expectErrorEnvelope(res, 400);
    expect(err.error_code).toBe('file.error.video_resolution_too_high');
    expect(err.details).toEqual({ field: 'file', constraint: 'at most 3840x2160 (either orientation)' });
    // Within the long side but over the short one, standing up.
    const tall = await uploadGeneral(owner, await makeFrames(path.join(scratch, 'tall.mp4'), '2200x3840', 1), 'tall.mp4');
    expect(expectErrorEnvelope(tall, 400).error_code).toBe('file.error.video_resolution_too_high');

    const contentId = await createContent(owner);
    const failed = nextFailure(server, contentId);
    expect((await uploadMain(owner, contentId, wide, 'wide.mp4')).status).toBe(200);
    const job = await waitForJobEnd(server.service, contentId);
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    expect(job.last_error).toBe('the video is 4000x2200; at most 3840x2160 (either orientation) is accepted');
    expect((await contentVideo(server.service, contentId)).status).toBe('failed');
    expect(await hlsFiles(server, contentId)).toEqual([]);
    expect(await failed).toMatchObject({ error_code: 'video.error.resolution_too_high' });
  });

  it('should still accept real MP4 and WebM videos, and a 2160x3840 portrait video', { timeout: 60_000 }, async () => {
    const mp4 = await uploadGeneral(owner, await makeVideo(path.join(scratch, 'ok.mp4'), { seconds: 2, size: '160x120' }), 'ok.mp4');
    expect(mp4.status).toBe(201);
    expect(mp4.body.data.metadata).toEqual({ width: 160, height: 120, format: 'mp4' });
    const webm = await uploadGeneral(owner, await makeWebm(path.join(scratch, 'ok.webm'), 2, '160x120'), 'ok.webm');
    expect(webm.status).toBe(201);
    expect(webm.body.data.metadata).toEqual({ width: 160, height: 120, format: 'webm' });
    const portrait = await uploadGeneral(owner, await makeFrames(path.join(scratch, 'portrait.mp4'), '2160x3840', 2), 'portrait.mp4');
    expect(portrait.status).toBe(201);
    expect(portrait.body.data.metadata).toEqual({ width: 2160, height: 3840, format: 'mp4' });
  });

  it('should process a WebM main video through the Matroska demuxer', { timeout: 90_000 }, async () => {
    const contentId = await createContent(owner);
    expect((await uploadMain(owner, contentId, await makeWebm(path.join(scratch, 'main.webm'), 2, '160x120'), 'main.webm')).status).toBe(200);
    expect(await waitForJobEnd(server.service, contentId)).toMatchObject({ status: 'completed', last_error: null });
    const { video } = await contentVideo(server.service, contentId);
    expect(video).toMatchObject({ status: 'completed', resolution: '160x120' });
    expect(await storedMedia(server.service).exists(video.playlist_path)).toBe(true);
  });
});

/**
 * An ffprobe that notes its arguments, one run a line, then is the real one: shows every probe the
 * node starts.
 */
function loggingFfprobe(): { path: string; runs: () => string[] } {
  const log = path.join(scratch, 'ffprobe-runs.log');
  const wrapper = path.join(scratch, 'ffprobe-logging.sh');
  fs.writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec ffprobe "$@"\n`, { mode: 0o755 });
  return { path: wrapper, runs: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : []) };
}

describe('processing time limit (VIDEO_JOB_TIMEOUT_SECONDS=1)', () => {
  const ffprobe = loggingFfprobe();
  const booted = useTestServer({ VIDEO_WORKERS: '1', VIDEO_JOB_TIMEOUT_SECONDS: '1', FFPROBE_PATH: ffprobe.path });
  let server: TestServer;
  let owner: TestUser;

  beforeAll(async () => {
    server = booted.current;
    owner = await registerAndLogin(server);
  });

  it('should kill ffmpeg past the limit and end the job failed, telling the uploader', { timeout: 120_000 }, async () => {
    // Several seconds of 720p work for x264 on any machine: well past one second.
    const clip = await makeVideo(path.join(scratch, 'slow.mp4'), { seconds: 10, size: '1280x720', audio: false });
    const contentId = await createContent(owner);
    const socket = await connect(server.url, '/processing', owner.token, 'websocket');
    const failedEvent = nextEvent<any>(socket, 'video:failed', (p) => p.contentId === contentId, 60_000);
    expect((await uploadMain(owner, contentId, clip, 'slow.mp4')).status).toBe(200);

    const job = await waitForJobEnd(server.service, contentId);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, last_error: 'processing took longer than the limit of 1 s' });
    const { status, video } = await contentVideo(server.service, contentId);
    expect(status).toBe('failed');
    expect(video).toMatchObject({ status: 'failed', error: 'processing took longer than the limit of 1 s', playlist_path: null });
    expect(await hlsFiles(server, contentId)).toEqual([]);
    expect(await failedEvent).toEqual({ contentId, error_code: 'video.error.timed_out', message: 'processing took longer than the limit of 1 s' });
    socket.close();

    // Every process the attempt started has exited by the time the job reads failed: ffmpeg is
    // killed and waited for, and the only ffprobe runs are the node's own, with an explicit
    // demuxer and only the file protocol (none started beside ffmpeg that the limit cannot reach).
    const { stdout } = await run('ps', ['-eo', 'args']);
    expect(stdout.split('\n').filter((l) => l.includes(contentId))).toEqual([]);
    const probes = ffprobe.runs().filter((l) => l.includes(contentId));
    expect(probes.length).toBeGreaterThan(0);
    for (const probe of probes) expect(probe).toMatch(/-f (mov|matroska) -protocol_whitelist file /);
    // `failed` is final: no worker claims a failed job again.
    expect(await latestJob(server.service, contentId)).toMatchObject({ status: 'failed', attempts: 1 });
  });
});
