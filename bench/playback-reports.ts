// Playback reports (CONTRACT §26) on one embedded node: 1,000 simulated anonymous viewers (each an
// address behind a trusted proxy) over 64 connections, every report a new playback of one of ten
// published 4 s videos (2 s watched: a view at once, when the viewer's hour allows). Prints
// reports/s, p50/p99 and the database statements the node ran per 100 reports (its
// db_query_duration_seconds count on /metrics, before and after the measured run), beside a bare
// uWebSockets.js app that answers every POST with a small envelope, in the same run; and the
// node's CPU per report (its process_cpu_seconds_total).
//   node --import tsx bench/playback-reports.ts [--seconds 10] [--connections 64]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/shared/logger.js';
import { startService } from '../service.js';
import { benchChildren, benchUserToken, startedChild, stopChild } from './bench-helpers.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg('seconds', 10);
const connections = arg('connections', 64);
const VIEWERS = 1_000;
const ITEMS = 10;

const BARE_UWS_POST = `
import uWS from 'uWebSockets.js';
uWS.App().any('/*', (res) => {
  res.onAborted(() => {});
  res.onData((_chunk, last) => {
    if (last) res.cork(() => { res.writeHeader('Content-Type', 'application/json'); res.end('{"success":true,"message":"Playback reported","data":{"counted":false}}'); });
  });
}).listen('127.0.0.1', Number(process.env.PORT), (s) => { if (!s) process.exit(1); });
process.on('SIGTERM', () => process.exit(0));
`;

interface Figures {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  statementsPer100?: number;
  cpuMsPerReport?: number;
}

const viewerAddress = (i: number) => `10.77.${i >> 8}.${i & 255}`;

async function load(label: string, base: string, itemIds: string[]) {
  const opts = {
    url: base,
    connections,
    requests: [
      {
        method: 'POST' as const,
        setupRequest: (req: autocannon.Request) => {
          const viewer = Math.floor(Math.random() * VIEWERS);
          return {
            ...req,
            path: `/content/api/v1/contents/${itemIds[viewer % itemIds.length]}/views`,
            headers: { 'content-type': 'application/json', 'x-forwarded-for': viewerAddress(viewer) },
            body: JSON.stringify({ playback_id: randomUUID(), position: 2, watched: 2, source: 'feed' }),
          };
        },
      },
    ],
  };
  await autocannon({ ...opts, duration: 2 });
  const r = await autocannon({ ...opts, duration: seconds });
  return {
    label,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    total: r.requests.total,
  };
}

/** The node's statements run so far, and its CPU seconds (from /metrics). */
async function statements(base: string): Promise<{ statements: number; cpu: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const statements = text
    .split('\n')
    .filter((l) => l.startsWith('db_query_duration_seconds_count'))
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
  return { statements, cpu: Number(/^process_cpu_seconds_total ([\d.e+-]+)$/m.exec(text)?.[1] ?? NaN) };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-views-'));
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_SCALE: '100000',
    SCHEDULER_ENABLED: 'false',
    VIDEO_WORKERS: '0',
    NODE_ENV: 'production',
    TRUST_PROXY: 'true',
    ADMIN_PHONE_NUMBER: '+84909999999',
    ADMIN_PASSWORD: 'admin-password-1',
  };
  const results: Figures[] = [];
  try {
    // Set-up in this process (the items' published state is what the video worker would write), then the node as a process.
    const setup = await startService(loadConfig({ ...env, PORT: '0' }), createLogger('silent'));
    const token = await benchUserToken(setup.url, dataDir);
    const itemIds: string[] = [];
    for (let i = 0; i < ITEMS; i++) {
      const res = await fetch(`${setup.url}/content/api/v1/content`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          price: 1_000_000_000,
          unit_price: 'VND',
          area: 50,
          unit_area: 'm2',
          video: { original_name: 'tour.mp4', size: 1_000_000 },
          real_estate_info: { apartment_type: 'apartment', project_status: 'completed' },
          content_info: [{ lang: 'en', project_name: `Bench ${i}`, description: 'Bench' }],
        }),
      });
      const created = await res.json();
      if (!created?.data?.id) throw new Error(`could not create an item: ${JSON.stringify(created)}`);
      itemIds.push(created.data.id);
    }
    await setup.app.database.rows(sql`
      update contents set status = 'completed', video = video || '{"status": "completed", "duration": 4}'::jsonb
      where id = any(${`{${itemIds.join(',')}}`}::uuid[])`);
    await setup.close();

    const node = await startedChild(['--import', 'tsx', 'main.ts'], env, '/readyz');
    const before = await statements(node.base);
    const service = await load('service (embedded PGlite) POST /contents/{id}/views', node.base, itemIds);
    const after = await statements(node.base);
    // Includes the warm-up's reports: the statements span both runs.
    results.push({
      ...service,
      statementsPer100: Math.round(((after.statements - before.statements) / service.total) * 100 * 1000) / 1000,
      // The node's CPU per report (warm-up included, as for the statements): on a shared machine
      // it moves much less than the rate with the other work running.
      cpuMsPerReport: ((after.cpu - before.cpu) * 1000) / service.total,
    });
    await stopChild(node.child);

    const bare = await startedChild(['--input-type=module', '-e', BARE_UWS_POST], {}, '/');
    results.push(await load('bare uWebSockets.js, POST answered at once', bare.base, itemIds));
    await stopChild(bare.child);
  } finally {
    for (const child of benchChildren) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const cpus = os.cpus();
  console.log(`\n${VIEWERS} viewers, ${connections} connections, ${seconds} s; ${cpus.length} × ${cpus[0]?.model ?? 'CPU'}, Node ${process.version}\n`);
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  console.log('| target | reports/s | p50 ms | p99 ms | non-2xx | errors | statements / 100 reports | node CPU ms / report |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(
      `| ${r.label} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} | ${r.statementsPer100 ?? '–'} | ${r.cpuMsPerReport?.toFixed(3) ?? '–'} |`,
    );
  }
}

await main();
