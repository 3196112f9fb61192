// A node killed (SIGKILL) in the middle of processing a video: its job keeps its claim until the
// lease runs out, then a new node on the same storage takes it up and finishes it.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { storedMedia } from '../helpers/stored-media.js';
import { loadConfig } from '../../src/config.js';
import { afterAll, describe, expect, it } from 'vitest';
import { startNode, testEnvironment } from '../helpers/server.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import type { RunningService } from '../../service.js';
import { UPLOAD, contentVideo, createContent, form, latestJob, makeVideo, scratchDir, waitForJobEnd } from './media-helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const scratch = scratchDir();
let child: ChildProcess | null = null;
let node: RunningService | null = null;
let cleanup: (() => Promise<void>) | null = null;

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await node?.close();
  await cleanup?.();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** Starts `node --import tsx main.ts` with `env`; resolves with its URL once it listens. */
function spawnService(env: Record<string, string>): Promise<{ process: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  return new Promise((resolve, reject) => {
    let buffered = '';
    let stderr = '';
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.stdout.on('data', (c: Buffer) => {
      buffered += c.toString();
      for (const line of buffered.split('\n').slice(0, -1)) {
        try {
          const entry = JSON.parse(line);
          if (entry.msg === 'service listening') resolve({ process: proc, url: `http://127.0.0.1:${entry.port}` });
        } catch {
          /* not a log line */
        }
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    });
    proc.once('exit', (code) => reject(new Error(`service exited with ${code}: ${stderr.slice(-500)}`)));
  });
}

/** Pids of processes whose command line mentions `needle` (the killed node's orphaned ffmpeg). */
function pidsMentioning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) pids.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return pids;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('video processing survives a killed node', () => {
  it('should take up a job whose node died mid-way once its lease runs out, and complete it', { timeout: 240_000 }, async () => {
    const environment = await testEnvironment({ JOB_LEASE_SECONDS: '2', VIDEO_WORKERS: '1', SCHEDULER_ENABLED: 'false' });
    cleanup = environment.cleanup;
    const env = environment.env;
    const stored = storedMedia({ config: loadConfig(env) });
    const clip = await makeVideo(path.join(scratch, 'long.mp4'), { seconds: 30, size: '640x360' });

    // The node that will be killed: a real process.
    const first = await spawnService(env);
    const user: TestUser = await registerAndLogin({ url: first.url, dataDir: env.DATA_DIR } as never);
    const contentId = await createContent(user);
    const res = await user.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: clip, filename: 'long.mp4' }]) });
    expect(res.status).toBe(200);

    // Wait until transcoding is under way (segments appear in the job's work directory).
    const workDir = stored.workDir(contentId);
    let partial: string[] = [];
    while (partial.length < 2) {
      partial = stored.workDirsLeft(contentId).flatMap((w) => {
        const hls = path.join(workDir, w, 'hls');
        return fs.existsSync(hls)
          ? fs
              .readdirSync(hls, { recursive: true })
              .map(String)
              .filter((f) => f.endsWith('.ts'))
          : [];
      });
      await sleep(50);
    }
    first.process.kill('SIGKILL');
    await new Promise((r) => first.process.once('exit', r));
    // The killed node's ffmpeg was orphaned: end it too (by pid), as the machine's death would.
    for (const pid of pidsMentioning(`content/${contentId}/`)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    expect(await stored.exists(`content/${contentId}/hls/master.m3u8`)).toBe(false);

    // A new node on the same storage: the job stays `running` under the dead node's claim until
    // its 2 s lease runs out; then this node claims it again (attempt 2) and finishes it.
    node = await startNode(env);
    const job = await waitForJobEnd(node, contentId);
    expect(job).toMatchObject({ status: 'completed', attempts: 2 });
    const { status, video } = await contentVideo(node, contentId);
    expect(status).toBe('completed');
    expect(video).toMatchObject({ status: 'completed', resolution: '640x360', playlist_path: `content/${contentId}/hls/master.m3u8` });
    expect(video.duration).toBeGreaterThan(29);
    const variant = (await stored.read(`content/${contentId}/hls/360p/index.m3u8`)).toString('utf8');
    expect(variant.split('\n').filter((l) => l.endsWith('.ts')).length).toBeGreaterThanOrEqual(7);
    expect(stored.workDirsLeft(contentId)).toEqual([]);
  });

  it('should give a job back at once when its node stops cleanly mid-way', { timeout: 240_000 }, async () => {
    const environment = await testEnvironment({ VIDEO_WORKERS: '1', SCHEDULER_ENABLED: 'false', SHUTDOWN_TIMEOUT_MS: '200', JOB_LEASE_SECONDS: '600' });
    const env = environment.env;
    const previousCleanup = cleanup;
    cleanup = async () => {
      await previousCleanup?.();
      await environment.cleanup();
    };
    const clip = await makeVideo(path.join(scratch, 'long2.mp4'), { seconds: 30, size: '640x360' });
    let service = await startNode(env);
    const user: TestUser = await registerAndLogin({ url: service.url, dataDir: env.DATA_DIR } as never);
    const contentId = await createContent(user);
    const res = await user.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: clip, filename: 'long.mp4' }]) });
    expect(res.status).toBe(200);
    while ((await latestJob(service, contentId))?.status !== 'running') await sleep(50);
    // Stop gives the job back (the lease is 10 minutes: only the release lets it run again soon).
    await service.close();
    service = await startNode(env);
    node = service;
    const job = await waitForJobEnd(service, contentId);
    // Released, not expired: the interrupted attempt is not counted.
    expect(job).toMatchObject({ status: 'completed', attempts: 1 });
    expect((await contentVideo(service, contentId)).status).toBe('completed');
  });
});
