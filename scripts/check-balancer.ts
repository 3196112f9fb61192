// Checks deploy/haproxy.cfg without Docker: two server-mode nodes on this machine behind haproxy
// (its config with the node addresses rewritten to localhost), then REST, readiness checks and
// Socket.IO over polling, websocket and polling→websocket upgrade through the balancer.
//   CHECK_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres CHECK_REDIS_URL=redis://127.0.0.1:6379/0 \
//     npx tsx scripts/check-balancer.ts
// Needs `haproxy` on PATH (apt-get install haproxy). Creates and drops a scratch database.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { io } from 'socket.io-client';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/shared/logger.js';
import { startService, type RunningService } from '../service.js';

const serverUrl = process.env.CHECK_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.CHECK_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const lbPort = Number(process.env.CHECK_LB_PORT ?? 18080);
const adminPhone = '+84909999999';
const adminPassword = 'check-balancer-1';

async function sql(statement: string) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const dbName = `revs_lbcheck_${randomBytes(4).toString('hex')}`;
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();
const dirs: string[] = [];
const nodes: RunningService[] = [];
let failures = 0;
const check = (label: string, ok: boolean, detail = '') => {
  if (!ok) failures++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}${detail ? `: ${detail}` : ''}`);
};

await sql(`CREATE DATABASE ${dbName}`);
const haproxyConfig = path.join(os.tmpdir(), `revs-haproxy-${process.pid}.cfg`);
let haproxy: ReturnType<typeof spawn> | null = null;
try {
  const prefix = `revs-lbcheck-${randomBytes(3).toString('hex')}:`;
  for (let i = 0; i < 2; i++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-lbcheck-'));
    dirs.push(dataDir);
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: dbUrl,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      TRUST_PROXY: '1',
      LOG_LEVEL: 'silent',
      ADMIN_PHONE_NUMBER: adminPhone,
      ADMIN_PASSWORD: adminPassword,
      PUBLIC_BASE_URL: `http://127.0.0.1:${lbPort}`,
      VIDEO_WORKERS: '0',
      SCHEDULER_ENABLED: 'false',
    });
    nodes.push(await startService(config, createLogger('silent')));
  }
  const repoConfig = fs.readFileSync(new URL('../deploy/haproxy.cfg', import.meta.url), 'utf8');
  fs.writeFileSync(
    haproxyConfig,
    repoConfig
      .replace(/node1:3000/g, `127.0.0.1:${nodes[0].port}`)
      .replace(/node2:3000/g, `127.0.0.1:${nodes[1].port}`)
      .replace(/bind :8080/, `bind 127.0.0.1:${lbPort}`)
      .replace(/ resolvers docker/g, '')
      .replace(/inter 5s/g, 'inter 1s'),
  );
  haproxy = spawn('haproxy', ['-db', '-f', haproxyConfig], { stdio: ['ignore', 'ignore', 'inherit'] });
  const lb = `http://127.0.0.1:${lbPort}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`${lb}/healthz`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  // Longer than fall × inter: servers whose health check fails would be marked down by now.
  await new Promise((r) => setTimeout(r, 4000));

  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await fetch(`${lb}/readyz`)).status);
  check(
    'REST through the balancer (health checks keep both nodes up)',
    statuses.every((s) => s === 200),
    statuses.join(','),
  );

  const login = await fetch(`${lb}/auth/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone_number: adminPhone, password: adminPassword }),
  }).then((r) => r.json());
  check('login through the balancer', login.success === true);
  const token = login.data?.AccessToken;

  for (const transports of [['polling'], ['websocket'], ['polling', 'websocket']] as const) {
    const socket = io(`${lb}/chat`, { auth: { token }, transports: [...transports], reconnection: false, forceNew: true });
    const outcome = await new Promise<string>((resolve) => {
      socket.on('connect', () => resolve('connected'));
      socket.on('connect_error', (e) => resolve(`connect_error ${e.message}`));
      setTimeout(() => resolve('timeout'), 8000);
    });
    // Several polling round trips (or the upgrade) must reach the same node.
    await new Promise((r) => setTimeout(r, 2500));
    const transport = socket.io.engine?.transport?.name;
    check(`Socket.IO ${transports.join('→')}`, outcome === 'connected' && socket.connected, `${outcome}, transport ${transport}`);
    socket.close();
  }
  const handshake = await fetch(`${lb}/socket.io/?EIO=4&transport=polling`);
  check(
    'sticky cookie on the Socket.IO handshake',
    /revs_io=node[12]/.test(handshake.headers.get('set-cookie') ?? ''),
    handshake.headers.get('set-cookie') ?? 'none',
  );
} finally {
  haproxy?.kill('SIGTERM');
  for (const node of nodes) await node.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(haproxyConfig, { force: true });
  await sql(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
}
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
