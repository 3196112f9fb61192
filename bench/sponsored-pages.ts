// The first pages of /feeds and /all with the sponsored slot at work, beside the same pages with no
// campaign active, in the same run (CONTRACT §26: within 10% of their req/s):
//   npx tsx bench/sponsored-pages.ts
//   BENCH_SECONDS=10 BENCH_ITEMS=10000 npx tsx bench/sponsored-pages.ts
// Knobs: BENCH_ITEMS (1000 seeded items), BENCH_SECONDS (5 per target, after 2 s of warm-up),
// BENCH_CONNECTIONS (64), BENCH_VIEWERS (32 signed-in viewers for /feeds).
// 1. seeds in this process (embedded PGlite in a temporary DATA_DIR): the viewers, the items
//    (seed-content.ts), one owner's listed item and a campaign on it targeting TP. Hồ Chí Minh with
//    the largest budget (so it never runs out during the run), then pauses it; stops;
// 2. starts the service as a child (production, LOG_LEVEL=warn, TRUST_PROXY=true), warms it up
//    with one unreported round, and loads, each
//    request with a random centre (half inside TP. Hồ Chí Minh, half elsewhere in the country):
//    /all anonymously, each request from a random client address (X-Forwarded-For: a new viewer
//    each time, so the frequency cap never stops the slot), and /feeds as a random viewer (their
//    cap of 3 a day stops the slot quickly: the cost of the check remains);
//    first with the campaign paused (no campaign active), then resumed, then paused again;
// 3. prints req/s and p99 per target and phase, and the ratio to the no-campaign runs.
// Not part of `npm test`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/config.js';
import { startService } from '../service.js';
import { createLogger } from '../src/shared/logger.js';
import { benchUserToken, freePort, spawnNode, stopChild, waitFor } from './bench-helpers.js';
import { seedContent } from './seed-content.js';

const items = Number(process.env.BENCH_ITEMS ?? 1000);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const viewerCount = Number(process.env.BENCH_VIEWERS ?? 32);
const BUDGET = 10_000_000_000;

const env = (dataDir: string) => ({
  DATA_DIR: dataDir,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_SCALE: '100000',
  SCHEDULER_ENABLED: 'false',
  VIDEO_WORKERS: '0',
  BCRYPT_ROUNDS: '4',
});

async function call(base: string, method: string, p: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function seed(dataDir: string): Promise<{ owner: string; viewers: string[]; campaignId: string }> {
  const service = await startService(loadConfig({ ...env(dataDir), PORT: '0' }), createLogger('warn'));
  try {
    const base = service.url;
    const owner = await benchUserToken(base, dataDir);
    const viewers: string[] = [];
    for (let i = 0; i < viewerCount; i++) viewers.push(await benchUserToken(base, dataDir));
    const me = await call(base, 'GET', '/auth/api/v1/user/me', viewers[0]).catch(() => null);
    const [someone] = await service.app.database.rows<{ id: string }>(sql`select id from users order by created_at limit 1`);
    await seedContent(service.app.database.longRunning, items, me?.data?.id ?? someone.id);
    const created = await call(base, 'POST', '/content/api/v1/content', owner, {
      price: 3_500_000_000,
      unit_price: 'VND',
      area: 70,
      unit_area: 'm²',
      video: { original_name: 'tour.mp4', size: 1_000_000 },
      real_estate_info: { legal_certificates: 'pink_book', apartment_type: 'apartment', project_status: 'handed_over' },
      content_info: [{ lang: 'en', project_name: 'Promoted apartment', description: 'Bench', address: 'District 1' }],
      geo: { lat: 10.7756, long: 106.7004 },
    });
    const videoId: string = created.data.id;
    await service.app.database.rows(sql`update contents set status = 'completed',
      video = video || ${JSON.stringify({ status: 'completed', duration: 30, playlist_path: `videos/${videoId}/hls/index.m3u8`, thumbnail_path: `videos/${videoId}/thumb.jpg` })}::jsonb
      where id = ${videoId}`);
    const est = await call(base, 'POST', '/api/v1/campaigns/estimate', owner, {
      video_id: videoId,
      budget: { amount: BUDGET, currency: 'VND' },
      duration_days: 30,
      targeting: { locations: [{ id: 'vn-ho-chi-minh', type: 'city' }] },
    });
    const campaign = await call(base, 'POST', '/api/v1/campaigns/create', owner, {
      estimation_id: est.data.estimation_id,
      video_id: videoId,
      campaign_config: { name: 'Bench', budget: { amount: BUDGET, currency: 'VND' }, duration_days: 30 },
      payment: { method: 'card', amount: BUDGET + Math.round(BUDGET * 0.05), payment_token: 'tok_visa' },
    });
    const campaignId: string = campaign.data.campaign_id;
    await call(base, 'POST', `/api/v1/campaigns/${campaignId}/pause`, owner);
    return { owner, viewers, campaignId };
  } finally {
    await service.close();
  }
}

/** A centre: half the time inside TP. Hồ Chí Minh, else anywhere between Cần Thơ and Hà Nội. */
function centre(): string {
  const inside = Math.random() < 0.5;
  const lat = inside ? 10.7 + Math.random() * 0.15 : 10 + Math.random() * 11;
  const lng = inside ? 106.62 + Math.random() * 0.15 : 105 + Math.random() * 4;
  return `latitude=${lat.toFixed(5)}&longitude=${lng.toFixed(5)}`;
}

const randomAddress = () => `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;

interface Figures {
  label: string;
  rps: number;
  p99: number;
  sponsored: number;
}

async function load(base: string, label: string, listing: 'all' | 'feeds', viewers: string[]): Promise<Figures> {
  const setupRequest = (req: autocannon.Request): autocannon.Request => {
    if (listing === 'all') {
      return { ...req, path: `/content/api/v1/all?per_page=20&${centre()}`, headers: { 'x-forwarded-for': randomAddress() } };
    }
    const token = viewers[Math.floor(Math.random() * viewers.length)];
    return { ...req, path: `/content/api/v1/feeds?per_page=20&${centre()}`, headers: { authorization: `Bearer ${token}` } };
  };
  await autocannon({ url: base, connections, duration: 2, requests: [{ setupRequest }] });
  const r = await autocannon({ url: base, connections, duration: seconds, requests: [{ setupRequest }] });
  if (r.non2xx) throw new Error(`${label}: ${r.non2xx} answers were not 2xx`);
  // How many sampled first pages carry the sponsored item (to show the slot was at work).
  let sponsored = 0;
  for (let i = 0; i < 50; i++) {
    const req = setupRequest({});
    const res = await fetch(base + req.path, { headers: req.headers as Record<string, string> });
    const body = (await res.json()) as { data: Record<string, { sponsored?: unknown }[]> };
    if ((body.data[listing === 'all' ? 'item' : 'items'] ?? []).some((i) => i.sponsored)) sponsored++;
  }
  return { label, rps: r.requests.average, p99: r.latency.p99, sponsored };
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-sponsored-'));
  let child: ChildProcess | null = null;
  try {
    const { owner, viewers, campaignId } = await seed(dataDir);
    const port = await freePort();
    child = spawnNode(['--import', 'tsx', 'main.ts'], { ...env(dataDir), PORT: String(port), NODE_ENV: 'production', TRUST_PROXY: 'true' });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/readyz`, { child });
    // The read model trusts its caches a few seconds after start: a first, unreported round warms them.
    for (const listing of ['all', 'feeds'] as const) await load(base, 'warm-up', listing, viewers);
    const results: Figures[] = [];
    for (const phase of ['none', 'active', 'none again'] as const) {
      if (phase === 'active') await call(base, 'POST', `/api/v1/campaigns/${campaignId}/resume`, owner);
      if (phase === 'none again') await call(base, 'POST', `/api/v1/campaigns/${campaignId}/pause`, owner);
      for (const listing of ['all', 'feeds'] as const) results.push(await load(base, `${listing} (${phase})`, listing, viewers));
    }
    const base0 = (listing: string) => {
      const runs = results.filter((r) => r.label.startsWith(listing) && !r.label.includes('active'));
      return runs.reduce((s, r) => s + r.rps, 0) / runs.length;
    };
    console.log(`\nitems ${items}, ${connections} connections, ${seconds} s per run, ${viewerCount} viewers for /feeds`);
    console.log('| target | req/s | p99 ms | sampled pages with the sponsored item (of 50) | vs. no campaign |');
    console.log('|---|---|---|---|---|');
    for (const r of results) {
      const listing = r.label.split(' ')[0];
      console.log(`| /${r.label} | ${Math.round(r.rps)} | ${r.p99} | ${r.sponsored} | ${((r.rps / base0(listing)) * 100).toFixed(1)}% |`);
    }
    const campaign = await call(base, 'GET', `/api/v1/campaigns/${campaignId}`, owner);
    console.log(`campaign delivery after the run: ${JSON.stringify(campaign.data.delivery)}`);
  } finally {
    if (child) await stopChild(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
