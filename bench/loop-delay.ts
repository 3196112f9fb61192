// Event-loop responsiveness of an embedded-mode node while it serves listings over 100,000 items.
//   npx tsx bench/loop-delay.ts      (BENCH_ITEMS=100000, BENCH_SECONDS=5, BENCH_CONNECTIONS=64,
//                                     BENCH_THREADS=main,worker; BENCH_ANONYMOUS=1 loads the
//                                     listings without signing in; BENCH_READ_CACHE=on keeps
//                                     the node's read caches, off by default so that every
//                                     listing request runs its statements)
// 1. seeds a fresh embedded data directory in this process (one viewer, the items of
//    bench/seed-content.ts) and stops;
// 2. for each PGLITE_THREAD in BENCH_THREADS, starts `main.ts` as a child process on that
//    directory and runs three phases of BENCH_SECONDS each: no load (the reference), then
//    autocannon on GET /all (a search and two filters), then on GET /completed (a map viewport);
// 3. during every phase a probe on its own thread and its own keep-alive connection sends
//    GET /healthz 20 times a second, one at a time, and keeps the round trips: what a socket
//    client feels when the loop is busy. Beside it, the node's own event-loop delay
//    (nodejs_eventloop_lag_* from GET /metrics, which resets that histogram on every read).
// Prints one table. Not part of `npm test`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { startService } from '../service.js';
import { createLogger } from '../src/shared/logger.js';
import { freePort, postJson, SEEDING_SERVICE_ENV, sleep, waitFor } from './bench-helpers.js';
import { seedContent } from './seed-content.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const items = Number(process.env.BENCH_ITEMS ?? 100_000);
const threads = (process.env.BENCH_THREADS ?? 'main,worker').split(',').map((t) => t.trim());
for (const t of threads) if (t !== 'main' && t !== 'worker') throw new Error(`BENCH_THREADS: unknown thread ${t}`);
const signedIn = process.env.BENCH_ANONYMOUS !== '1';
// What is measured is the database's work on (or off) the event loop: cached pages would hide it.
const readCache = process.env.BENCH_READ_CACHE === 'on' ? 'on' : 'off';
const PROBE_INTERVAL_MS = 50;

/** Seeds `dataDir` in this process; returns a viewer's access token. */
async function seed(dataDir: string): Promise<string> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    ...SEEDING_SERVICE_ENV,
  });
  const service = await startService(config, createLogger('warn'));
  try {
    const base = service.url;
    const phone = `+8490${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const password = 'bench-password-1';
    await postJson(`${base}/auth/api/v1/register`, {
      username: `loop${Date.now().toString(36)}`,
      password,
      phone_number: phone,
      given_name: 'Loop',
      family_name: 'Viewer',
    });
    const outbox = fs
      .readFileSync(path.join(dataDir, 'sms-outbox.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    await postJson(`${base}/auth/api/v1/verify-otp`, { phone_number: phone, otp: outbox.filter((e) => e.to === phone).at(-1).code });
    const login = await postJson(`${base}/auth/api/v1/login`, { phone_number: phone, password });
    await seedContent(service.app.database.longRunning, items, login.data.user.sub);
    return login.data.AccessToken;
  } finally {
    await service.close();
  }
}

// The probe runs on a thread of its own so that autocannon's work on this thread does not delay
// it: its round trips are the node's doing. Plain JavaScript (no loader needed in the thread).
const PROBE_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const rtts = [];
let failures = 0;
let stopping = false;
parentPort.once('message', () => { stopping = true; });
const once = () => new Promise((resolve) => {
  const started = process.hrtime.bigint();
  const req = http.get(workerData.url, { agent, timeout: 10000 }, (res) => {
    res.resume();
    res.on('end', () => {
      if (res.statusCode === 200) rtts.push(Number(process.hrtime.bigint() - started) / 1e6);
      else failures++;
      resolve();
    });
  });
  req.on('timeout', () => req.destroy(new Error('timeout')));
  req.on('error', () => { failures++; resolve(); });
});
(async () => {
  let next = Date.now();
  while (!stopping) {
    await once();
    next += workerData.intervalMs;
    const wait = next - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    else next = Date.now();
  }
  agent.destroy();
  parentPort.postMessage({ rtts, failures });
})();
`;

interface ProbeResult {
  rtts: number[];
  failures: number;
}

function startProbe(url: string): { stop: () => Promise<ProbeResult> } {
  const worker = new Worker(PROBE_SOURCE, { eval: true, workerData: { url, intervalMs: PROBE_INTERVAL_MS }, execArgv: [] });
  const done = new Promise<ProbeResult>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      worker.postMessage('stop');
      const result = await done;
      await worker.terminate();
      return result;
    },
  };
}

const quantile = (sorted: number[], q: number): number => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN);

/** The node's event-loop delay figures (ms) since the previous read of /metrics. */
async function nodeLoopDelay(base: string): Promise<{ p50: number; p99: number; max: number } | null> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const read = (name: string): number => {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text);
    return match ? Number(match[1]) * 1000 : NaN;
  };
  const figures = {
    p50: read('nodejs_eventloop_lag_p50_seconds'),
    p99: read('nodejs_eventloop_lag_p99_seconds'),
    max: read('nodejs_eventloop_lag_max_seconds'),
  };
  return Number.isNaN(figures.p99) ? null : figures;
}

interface Row {
  thread: string;
  load: string;
  requestsPerSecond: number | null;
  listingP99: number | null;
  non2xx: number;
  probes: number;
  probeFailures: number;
  probeP50: number;
  probeP99: number;
  probeMax: number;
  node: { p50: number; p99: number; max: number } | null;
}

async function phase(thread: string, base: string, load: { label: string; target: string } | null, auth: Record<string, string>): Promise<Row> {
  if (load) await autocannon({ url: base + load.target, connections, duration: 1, headers: auth }); // warm-up, not counted
  await nodeLoopDelay(base); // resets the node's histogram
  const probe = startProbe(`${base}/healthz`);
  let result: autocannon.Result | null = null;
  if (load) result = await autocannon({ url: base + load.target, connections, duration: seconds, headers: auth });
  else await sleep(seconds * 1000);
  const probed = await probe.stop();
  const node = await nodeLoopDelay(base);
  const sorted = probed.rtts.sort((a, b) => a - b);
  return {
    thread,
    load: load?.label ?? 'none (reference)',
    requestsPerSecond: result ? Math.round(result.requests.average) : null,
    listingP99: result ? result.latency.p99 : null,
    non2xx: result ? result.non2xx + result.errors + result.timeouts : 0,
    probes: sorted.length,
    probeFailures: probed.failures,
    probeP50: quantile(sorted, 0.5),
    probeP99: quantile(sorted, 0.99),
    probeMax: sorted.at(-1) ?? NaN,
    node,
  };
}

async function runThread(thread: string, dataDir: string, token: string): Promise<Row[]> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_SCALE: '100000',
      SCHEDULER_ENABLED: 'false',
      VIDEO_WORKERS: '0',
      NODE_ENV: 'production',
      PGLITE_THREAD: thread,
      READ_CACHE: readCache,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/readyz`, { child });
    const auth: Record<string, string> = signedIn ? { authorization: `Bearer ${token}` } : {};
    const loads = [
      { label: 'GET /all search "can ho" + VND + pool', target: '/content/api/v1/all?search=can%20ho&unit_price=VND&amenities=pool' },
      { label: 'GET /completed viewport zoom 13', target: '/content/api/v1/completed?latitude=10.78&longitude=106.70&zoom_level=13' },
    ];
    for (const { target } of loads) {
      const probe = await fetch(base + target, { headers: auth });
      if (probe.status !== 200) throw new Error(`${target}: ${probe.status} ${await probe.text()}`);
    }
    const rows = [await phase(thread, base, null, auth)];
    for (const load of loads) rows.push(await phase(thread, base, load, auth));
    return rows;
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-loop-'));
const rows: Row[] = [];
try {
  const token = await seed(dataDir);
  for (const thread of threads) rows.push(...(await runThread(thread, dataDir, token)));
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}

const ms = (v: number | null | undefined) => (v === null || v === undefined || Number.isNaN(v) ? '–' : v < 10 ? v.toFixed(2) : v.toFixed(1));
const cpus = os.cpus();
console.log(
  `\nembedded mode, ${items} items, ${signedIn ? 'signed in' : 'anonymous'}, READ_CACHE=${readCache}, ${connections} connections, ${seconds} s a phase, probe GET /healthz every ${PROBE_INTERVAL_MS} ms on its own connection;`,
);
console.log(`${cpus.length} × ${cpus[0]?.model ?? 'CPU'}, Node ${process.version}\n`);
console.log(
  '| PGLITE_THREAD | listing load | req/s | listing p99 ms | probe RTT p50 ms | p99 ms | max ms | probes (failed) | node loop delay p50 ms | p99 ms | max ms | non-2xx/errors |',
);
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.thread} | ${r.load} | ${r.requestsPerSecond ?? '–'} | ${ms(r.listingP99)} | ${ms(r.probeP50)} | ${ms(r.probeP99)} | ${ms(r.probeMax)} | ${r.probes} (${r.probeFailures}) | ${ms(r.node?.p50)} | ${ms(r.node?.p99)} | ${ms(r.node?.max)} | ${r.non2xx} |`,
  );
}
