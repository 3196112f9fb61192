// What the benches share: free ports, waiting for a node, posting JSON, statements on the
// PostgreSQL server a server-mode bench creates its scratch database on, child Node processes
// and the bare uWebSockets.js hello-world every HTTP bench measures beside the service.
import { z } from 'zod';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';

/** A bench knob listing values with commas (`BENCH_MODES=embedded,server`): 1 to `max` of them. */
export const commaList = (max: number) =>
  z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string()).min(1).max(max));

/** What a service started only to migrate and seed a bench's data runs with: no jobs, no workers, quiet. */
export const SEEDING_SERVICE_ENV = {
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  SCHEDULER_ENABLED: 'false',
  VIDEO_WORKERS: '0',
  RATE_LIMIT_SCALE: '100000',
  BCRYPT_ROUNDS: '4',
} as const;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Waits until `url` answers 2xx; fails early when `child` (the node being started) exits. */
export async function waitFor(url: string, options: { timeoutMs?: number; child?: ChildProcess } = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  while (Date.now() < deadline) {
    if (options.child && options.child.exitCode !== null) throw new Error(`the node exited with ${options.child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await sleep(200);
  }
  throw new Error(`${url} did not answer in time`);
}

export async function postJson(url: string, body: unknown): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * Registers, verifies (reading the code from the node's SMS outbox file in `dataDir`) and logs in
 * one user; returns its access token.
 */
export async function benchUserToken(base: string, dataDir: string): Promise<string> {
  const phone = `+8490${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
  const password = 'bench-password-1';
  await postJson(`${base}/auth/api/v1/register`, {
    username: `bench${Date.now().toString(36)}`,
    password,
    phone_number: phone,
    given_name: 'Bench',
    family_name: 'User',
  });
  const outbox = fs
    .readFileSync(path.join(dataDir, 'sms-outbox.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const code = outbox.filter((e) => e.to === phone).at(-1).code;
  await postJson(`${base}/auth/api/v1/verify-otp`, { phone_number: phone, otp: code });
  const login = await postJson(`${base}/auth/api/v1/login`, { phone_number: phone, password });
  return login.data.AccessToken;
}

/** Runs one statement (CREATE/DROP DATABASE) on the server at `databaseUrl`. */
export async function runOnServer(databaseUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The project folder (where main.ts is). */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Starts `node <args>` in the project folder with `env` and nothing else of this process's
 * environment but PATH and HOME, so a bench's child sees exactly the settings the bench chose.
 */
export function spawnNode(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, args, {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** SIGTERM, then waits for the exit (a node flushes its profile or closes its database first). */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/**
 * The transport alone: a uWebSockets.js app answering every GET with a small JSON envelope.
 * Run it with `node --input-type=module -e BARE_UWS_HELLO` and PORT in the environment.
 */
export const BARE_UWS_HELLO = `
import uWS from 'uWebSockets.js';
const port = Number(process.env.PORT);
uWS.App().get('/*', (res) => {
  res.cork(() => {
    res.writeHeader('Content-Type', 'application/json');
    res.end('{"success":true,"message":"OK","data":{"hello":"world"}}');
  });
}).listen('127.0.0.1', port, (socket) => { if (!socket) process.exit(1); });
process.on('SIGTERM', () => process.exit(0));
`;

/** Children started by `startedChild`, so a bench can stop what is left when it ends or fails. */
export const benchChildren = new Set<ChildProcess>();

/** Spawns `node args` on a free port and resolves once `readyPath` answers there. */
export async function startedChild(args: string[], childEnv: Record<string, string>, readyPath: string): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawnNode(args, { ...childEnv, PORT: String(port) });
  benchChildren.add(child);
  child.once('exit', () => benchChildren.delete(child));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(base + readyPath, { child });
  return { child, base };
}
