// The live feed's fan-out (CONTRACT §15) on two server-mode nodes (child processes, a fresh
// PostgreSQL database and one Redis prefix):
// 1. publish: an uploader with BENCH_FOLLOWERS followers (10,000), BENCH_CONNECTED of them (2,000)
//    connected to /feed over websocket, spread over both nodes from BENCH_WORKERS client processes.
//    A third node in this process plays the node whose video worker finished the item: it marks
//    the item completed and publishes `video.completed` on its bus, as src/media/video-processor.ts
//    does. Prints the time until the last connected follower has `feed:new` (and p50).
// 2. comment burst: every connected client watches the item (`content:watch`); BENCH_COMMENTS
//    (200) comments are posted over REST through both nodes as fast as BENCH_COMMENTERS (20)
//    users can. Prints the `content:stats` deliveries, deliveries per second, events per client and
//    the time until every watcher has the final count.
//   npx tsx bench/feed-fanout.ts
// Env: BENCH_FOLLOWERS, BENCH_CONNECTED, BENCH_COMMENTS, BENCH_COMMENTERS, BENCH_WORKERS (4),
// BENCH_ADAPTER (streams), BENCH_DATABASE_URL, BENCH_REDIS_URL. This file is also the client
// process (`feed-fanout.ts clients`, driven over IPC).
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { io, type Socket } from 'socket.io-client';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/shared/logger.js';
import { startService } from '../service.js';
import { sleep } from './bench-helpers.js';
import { ask, REDIS_URL, scratchDatabase, seed, startNode, stopNode, type NodeProcess, type RealtimeAdapter } from './socket-cluster.js';

const env = (name: string, fallback: string) => process.env[name] || fallback;

// ---- the client process -------------------------------------------------------------------------

interface ClientJob {
  clients: { url: string; token: string }[];
}

function runClients(): void {
  const sockets: Socket[] = [];
  let contentId = '';
  const feedArrivals: number[] = [];
  const statsArrivals: number[] = [];
  const finalAt = new Map<Socket, number>();
  let target = Infinity;

  const open = (c: ClientJob['clients'][number]) =>
    new Promise<void>((resolve, reject) => {
      const s = io(`${c.url}/feed`, { transports: ['websocket'], auth: { token: c.token }, reconnection: false, forceNew: true, timeout: 60_000 });
      sockets.push(s);
      s.on('feed:new', (item: { id: string }) => {
        if (item.id === contentId) feedArrivals.push(Date.now());
      });
      s.on('content:stats', (stats: { contentId: string; comment_count: number }) => {
        if (stats.contentId !== contentId) return;
        statsArrivals.push(Date.now());
        if (stats.comment_count >= target && !finalAt.has(s)) finalAt.set(s, Date.now());
      });
      s.once('connect_error', reject);
      s.once('connect', () => resolve());
    });

  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a rejection crashes this child, which is how the bench reports it
  process.on('message', async (msg: { type: string; job?: ClientJob; contentId?: string; comments?: number }) => {
    if (msg.type === 'connect' && msg.job) {
      contentId = msg.contentId!;
      let next = 0;
      let failed = 0;
      const { clients } = msg.job;
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (next < clients.length) await open(clients[next++]).catch(() => failed++);
        }),
      );
      process.send!({ type: 'connected', connected: sockets.filter((s) => s.connected).length, failed });
    } else if (msg.type === 'watch') {
      target = msg.comments!;
      const acks = await Promise.all(
        sockets.map((s) =>
          s
            .timeout(60_000)
            .emitWithAck('content:watch', { contentIds: [contentId] })
            .catch(() => ({ ok: false })),
        ),
      );
      process.send!({ type: 'watching', refused: acks.filter((a: { ok: boolean }) => !a.ok).length });
    } else if (msg.type === 'report') {
      process.send!({
        type: 'report',
        feedArrivals,
        statsArrivals,
        finalAt: [...finalAt.values()],
        watchers: sockets.length,
      });
    } else if (msg.type === 'close') {
      for (const s of sockets) s.close();
      process.exit(0);
    }
  });
}

// ---- the bench ----------------------------------------------------------------------------------

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
};

async function bench(): Promise<void> {
  const followers = Number(env('BENCH_FOLLOWERS', '10000'));
  const connected = Math.min(followers, Number(env('BENCH_CONNECTED', '2000')));
  const comments = Number(env('BENCH_COMMENTS', '200'));
  const commenters = Math.min(followers, Number(env('BENCH_COMMENTERS', '20')));
  const workerCount = Number(env('BENCH_WORKERS', '4'));
  const adapter = env('BENCH_ADAPTER', 'streams') as RealtimeAdapter;
  const here = fileURLToPath(import.meta.url);

  const database = await scratchDatabase();
  const prefix = `bench-feed-${randomBytes(4).toString('hex')}:`;
  const nodes: NodeProcess[] = [];
  const workers: ChildProcess[] = [];
  const publisherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-publisher-'));
  let publisher: Awaited<ReturnType<typeof startService>> | null = null;
  try {
    console.log(
      `bench: ${followers} followers, ${connected} connected over 2 nodes (${adapter} adapter), ${comments} comments, ${workerCount} client processes`,
    );
    const seeded = await seed(database.url, followers, 0);
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const uploaderId = (await db.query<{ id: string }>(`select id from users where username = 'bench0'`)).rows[0].id;
    await db.query(`insert into follows (follower_id, following_id) select id, $1 from users where username like 'bench%' and id <> $1`, [uploaderId]);
    const contentId = (
      await db.query<{ id: string }>(
        `
      insert into contents (id, uploader_id, price, unit_price, area, unit_area, latitude, longitude, content_info, langs, video)
      values (gen_random_uuid(), $1, 3500000000, 'VND', 70, 'm2', 10.73, 106.72,
        '[{"lang":"en","project_name":"Bench Tower","description":"","legal_certificates":null,"apartment_type":null,"project_status":null,"address":"District 7","extra_description":null}]',
        '{en}', '{"status":"pending"}') returning id`,
        [uploaderId],
      )
    ).rows[0].id;

    for (let i = 0; i < 2; i++) nodes.push(await startNode(database.url, prefix, adapter));
    publisher = await startService(
      loadConfig({
        DATABASE_URL: database.url,
        REDIS_URL,
        REDIS_PREFIX: prefix,
        REALTIME_ADAPTER: adapter,
        DATA_DIR: publisherDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        SCHEDULER_ENABLED: 'false',
        VIDEO_WORKERS: '0',
        JWT_SECRET: randomBytes(32).toString('hex'),
      }),
      createLogger('warn'),
    );

    // Followers 1..connected connect, alternately to each node.
    const jobs: ClientJob[] = Array.from({ length: workerCount }, () => ({ clients: [] }));
    for (let i = 1; i <= connected; i++) jobs[i % workerCount].clients.push({ url: nodes[i % 2].socketUrl, token: seeded.tokens[i] });
    for (let w = 0; w < workerCount; w++)
      workers.push(fork(here, ['clients'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    const connecting = Date.now();
    const opened = await Promise.all(
      workers.map((w, i) => ask<{ connected: number; failed: number }>(w, { type: 'connect', job: jobs[i], contentId }, 'connected')),
    );
    const open = opened.reduce((s, o) => s + o.connected, 0);
    console.log(
      `connected                 ${open} of ${connected} in ${((Date.now() - connecting) / 1000).toFixed(1)} s (${opened.reduce((s, o) => s + o.failed, 0)} failed)`,
    );
    await sleep(1000);

    // 1. Publish, as the video worker of the third node does.
    await db.query(`update contents set status = 'completed', video = video || '{"status":"completed"}' where id = $1`, [contentId]);
    const video = {
      original_name: null,
      size: null,
      resolution: '1080x1920',
      duration: 30,
      status: 'completed',
      thumbnail_url: null,
      content_url: null,
      url: null,
    };
    const published = Date.now();
    publisher.app.events.publish('video.completed', { uploaderId, contentId, video });
    let arrivals: number[] = [];
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      await sleep(200);
      arrivals = (await Promise.all(workers.map((w) => ask<{ feedArrivals: number[] }>(w, { type: 'report' }, 'report')))).flatMap((r) => r.feedArrivals);
      if (arrivals.length >= open) break;
    }
    console.log('\n== feed:new');
    console.log(`received                  ${arrivals.length} of ${open} connected followers`);
    console.log(`until the last follower   ${Math.max(...arrivals) - published} ms (p50 ${percentile(arrivals, 50) - published} ms)`);

    // 2. Comment burst on the item, every client watching it.
    const watching = await Promise.all(workers.map((w) => ask<{ refused: number }>(w, { type: 'watch', comments }, 'watching')));
    if (watching.some((w) => w.refused)) throw new Error('content:watch refused');
    await sleep(500);
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: commenters }, async (_, c) => {
        while (next < comments) {
          const i = next++;
          const res = await fetch(`${nodes[i % 2].socketUrl}/sns/api/v1/comments`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${seeded.tokens[1 + c]}` },
            body: JSON.stringify({ contentId, msg: `bench comment ${i}` }),
          });
          if (res.status !== 201) throw new Error(`comment refused: ${res.status} ${await res.text()}`);
        }
      }),
    );
    const burstEnd = Date.now();
    let reports: { statsArrivals: number[]; finalAt: number[]; watchers: number }[] = [];
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      await sleep(500);
      reports = await Promise.all(workers.map((w) => ask<(typeof reports)[number]>(w, { type: 'report' }, 'report')));
      if (reports.reduce((s, r) => s + r.finalAt.length, 0) >= open) break;
    }
    const stats = reports.flatMap((r) => r.statsArrivals);
    const finals = reports.flatMap((r) => r.finalAt);
    const window = (Math.max(...stats) - Math.min(...stats)) / 1000;
    console.log('\n== content:stats');
    console.log(
      `comments                  ${comments} in ${((burstEnd - started) / 1000).toFixed(1)} s (${Math.round(comments / ((burstEnd - started) / 1000))}/s through both nodes)`,
    );
    console.log(
      `deliveries                ${stats.length} to ${open} watchers (${(stats.length / open).toFixed(1)} per watcher: coalesced to one per item per second)`,
    );
    console.log(`deliveries per second     ${Math.round(stats.length / Math.max(window, 0.001))} (over ${window.toFixed(1)} s)`);
    console.log(
      `final count everywhere    ${finals.length} of ${open} watchers, the last ${Math.max(...finals) - burstEnd} ms after the last comment was answered`,
    );
    await db.end();
  } finally {
    for (const w of workers) w.send({ type: 'close' });
    await publisher?.close();
    await Promise.all(nodes.map(stopNode));
    await database.drop();
    fs.rmSync(publisherDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'clients') runClients();
else await bench();
