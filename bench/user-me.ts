// Throughput and latency of an authenticated read, next to the bare HTTP server it runs on.
//   npx tsx bench/user-me.ts            (BENCH_SECONDS=10, BENCH_CONNECTIONS=64 by default)
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/user-me.ts
//                                       (server mode: a scratch database on that server, dropped after)
// 1. Starts the real service as a child process (embedded PGlite in a temp DATA_DIR, LOG_LEVEL=warn,
//    limits raised with RATE_LIMIT_SCALE=100000), registers, verifies (code from the SMS outbox) and
//    logs in one user.
// 2. Loads GET /auth/api/v1/user/me with that bearer token (token check, live-session lookup,
//    role permissions, the profile query, the envelope).
// 3. Loads a bare uWebSockets.js hello-world child process the same way.
// Prints requests/s, p50 and p99 latency of each and their ratio. Not part of `npm test`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { BARE_UWS_HELLO, benchUserToken, freePort, runOnServer, waitFor } from './bench-helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const children: ChildProcess[] = [];
const serverDatabase = process.env.BENCH_DATABASE_URL;

function startChild(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(child);
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

interface Figures {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(label: string, url: string, headers: Record<string, string> = {}): Promise<Figures> {
  // A short warm-up (JIT, connection setup), then the measured run.
  await autocannon({ url, connections, duration: 2, headers });
  const r = await autocannon({ url, connections, duration: seconds, headers });
  return {
    label,
    requestsPerSecond: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-'));
  const results: Figures[] = [];
  const scratch = `revs_bench_${randomBytes(4).toString('hex')}`;
  const databaseEnv: Record<string, string> = {};
  if (serverDatabase) {
    await runOnServer(serverDatabase, `CREATE DATABASE ${scratch}`);
    databaseEnv.DATABASE_URL = Object.assign(new URL(serverDatabase), { pathname: `/${scratch}` }).toString();
  }
  try {
    const servicePort = await freePort();
    const service = startChild(['--import', 'tsx', 'main.ts'], {
      HOST: '127.0.0.1',
      PORT: String(servicePort),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_SCALE: '100000',
      SCHEDULER_ENABLED: 'false',
      VIDEO_WORKERS: '0',
      NODE_ENV: 'production',
      ...databaseEnv,
    });
    const base = `http://127.0.0.1:${servicePort}`;
    await waitFor(`${base}/readyz`);
    const token = await benchUserToken(base, dataDir);
    const auth = { authorization: `Bearer ${token}` };
    const probe = await fetch(`${base}/auth/api/v1/user/me`, { headers: auth });
    const target = probe.status === 200 ? '/auth/api/v1/user/me' : '/healthz';
    if (target === '/healthz') console.warn(`GET /auth/api/v1/user/me answered ${probe.status}; measuring /healthz instead`);
    const mode = serverDatabase ? 'PostgreSQL server' : 'embedded PGlite';
    results.push(await load(`service (${mode}) GET ${target}`, base + target, auth));
    await stopChild(service);

    const helloPort = await freePort();
    const hello = startChild(['--input-type=module', '-e', BARE_UWS_HELLO], { PORT: String(helloPort) });
    await waitFor(`http://127.0.0.1:${helloPort}/`);
    results.push(await load('bare uWebSockets.js hello-world', `http://127.0.0.1:${helloPort}/`));
    await stopChild(hello);
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (serverDatabase) await runOnServer(serverDatabase, `DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`).catch(() => undefined);
  }

  const cpus = os.cpus();
  console.log(`\n${connections} connections, ${seconds} s each; ${cpus.length} × ${cpus[0]?.model ?? 'CPU'}, Node ${process.version}\n`);
  console.log('| target | requests/s | p50 ms | p99 ms | non-2xx | errors |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of results) console.log(`| ${r.label} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} |`);
  const [svc, bare] = results;
  console.log(
    `\nservice / bare: ${((svc.requestsPerSecond / bare.requestsPerSecond) * 100).toFixed(1)} % of the requests/s; p50 ${(svc.p50 / Math.max(bare.p50, 0.001)).toFixed(1)}×, p99 ${(svc.p99 / Math.max(bare.p99, 0.001)).toFixed(1)}× the latency`,
  );
}

await main();
