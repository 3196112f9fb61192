// A resumable upload whose node is killed (SIGKILL) mid-PATCH (CONTRACT §24): the dead node's
// write lease must not outlast a phone's patience. tus-js-client with its default retry delays
// (0, 1, 3, 5 s: about 9 s in all) talks to the service through a proxy that stands for the load
// balancer: it lets half the file through to the doomed node, then the node is killed; new
// connections wait while a node starts on the same storage (embedded: the same data directory;
// server mode: the same PostgreSQL), so the client's retries measure only what the dead lease costs.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import * as tus from 'tus-js-client';
import { cleanUpChildren, listeningPort, startChild } from '../helpers/child-process.js';
import { startNode, testEnvironment } from '../helpers/server.js';
import { registerAndLogin } from '../helpers/api.js';
import type { RunningService } from '../../service.js';
import { createContent } from './media-helpers.js';
import { mediaInBucket } from '../helpers/stored-media.js';
import { RESUMABLE, headUpload } from './resumable-helpers.js';

let node: RunningService | null = null;
let cleanup: (() => Promise<void>) | null = null;
afterAll(async () => {
  cleanUpChildren();
  await node?.close();
  await cleanup?.();
});

/**
 * The load balancer: forwards to `target` (new connections wait while it is null), passing at
 * most `passAtMost` bytes towards the node on each connection while that is set.
 */
async function balancer() {
  let target: number | null = null;
  let passAtMost: number | null = null;
  const waiting: (() => void)[] = [];
  const sockets = new Set<net.Socket>();
  // Whether a connection has had all it may pass through (passAtMost) forwarded to the node.
  let capReached = false;
  const server = net.createServer((client) => {
    sockets.add(client);
    client.pause();
    const connect = () => {
      const upstream = net.connect(target!, '127.0.0.1');
      sockets.add(upstream);
      let forwarded = 0;
      client.on('data', (chunk) => {
        const room = passAtMost === null ? chunk.length : Math.max(0, passAtMost - forwarded);
        forwarded += Math.min(room, chunk.length);
        if (passAtMost !== null && forwarded >= passAtMost) capReached = true;
        if (room > 0) upstream.write(chunk.subarray(0, room));
      });
      upstream.on('data', (chunk) => client.write(chunk));
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
      client.resume();
    };
    if (target === null) waiting.push(connect);
    else connect();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    /** Whether a connection carried all the bytes the limit lets through to the node. */
    capReached: () => capReached,
    route(port: number | null, limit: number | null) {
      target = port;
      passAtMost = limit;
      if (port !== null) for (const go of waiting.splice(0)) go();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('a resumable upload whose node is killed mid-PATCH', () => {
  it('should resume with tus-js-client and its default retry delays on the node that takes over', { timeout: 240_000 }, async () => {
    const environment = await testEnvironment({ VIDEO_WORKERS: '0', SCHEDULER_ENABLED: 'false' });
    cleanup = environment.cleanup;
    const env: Record<string, string> = { ...environment.env, LOG_LEVEL: 'info' };
    const doomed = startChild(['--import', 'tsx', 'main.ts'], env);
    const doomedUrl = `http://127.0.0.1:${await listeningPort(doomed)}`;
    const owner = await registerAndLogin({ url: doomedUrl, dataDir: env.DATA_DIR } as never);
    const contentId = await createContent(owner);
    // A noisy PNG (an extra image of the item) of about 1 MB: big enough to be cut mid-body.
    const png = await sharp(randomBytes(600 * 600 * 3), { raw: { width: 600, height: 600, channels: 3 } })
      .png()
      .toBuffer();
    expect(png.length).toBeGreaterThan(200_000);
    const half = Math.floor(png.length * 0.52);

    const lb = await balancer();
    lb.route(Number(new URL(doomedUrl).port), half);
    const upload = new tus.Upload(png, {
      endpoint: lb.url + RESUMABLE,
      headers: { Authorization: `Bearer ${owner.token}` },
      metadata: { content_id: contentId, topic_key: 'video_images_url', filename: 'plan.png' },
    });
    // The client's defaults, as a phone's app has them.
    expect(upload.options.retryDelays).toEqual([0, 1000, 3000, 5000]);
    const statuses: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      upload.options.onAfterResponse = (req, res) => void statuses.push(`${req.getMethod()} ${res.getStatus()}`);
      upload.options.onSuccess = () => resolve();
      upload.options.onError = (err) => reject(err);
    });
    upload.start();

    // Half the file reaches the node, then the node dies with the PATCH under way. On the disk
    // the bytes show in the offset as they land; a bucket shows them only once the PATCH ends
    // (below 5 MiB they wait in the node's scratch file, lost with it: the client starts over).
    const onDisk = !mediaInBucket();
    for (;;) {
      const head = upload.url ? await headUpload(doomedUrl, owner.token, new URL(upload.url).pathname) : null;
      if (onDisk ? Number(head?.headers.get('upload-offset') ?? 0) > png.length * 0.4 : lb.capReached()) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    lb.route(null, null);
    doomed.child.kill('SIGKILL');
    await doomed.exited;

    node = await startNode(environment.env);
    lb.route(Number(new URL(node.url).port), null);
    await done;
    await lb.close();

    const location = new URL(upload.url!).pathname;
    const head = await headUpload(node.url, owner.token, location);
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(png.length));
    expect(statuses.at(-1)).toBe('PATCH 204');
  });
});
