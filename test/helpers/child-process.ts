// Starts the service as a child process (as an operator runs it) for the process and operations
// tests, and cleans up after them; and a free port for a node that must be started on a known one.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Child {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];

/** Kills what is still running and removes the data directories. */
export function cleanUpChildren(): void {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A fresh embedded data directory, seeded from the suite's migrated template when there is one. */
export function freshDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-ops-'));
  dirs.push(dir);
  const template = inject('pgliteTemplate');
  if (template && fs.existsSync(template)) fs.cpSync(template, path.join(dir, 'pgdata'), { recursive: true });
  return dir;
}

/** Runs `node <args>` in the project with a minimal embedded-mode environment plus `env`. */
export function startChild(args: string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      SCHEDULER_ENABLED: 'false',
      VIDEO_WORKERS: '0',
      SHUTDOWN_TIMEOUT_MS: '3000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** The port from the "service listening" log line, once it appears. */
export async function listeningPort(p: Child, timeoutMs = 90_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const line of p.stdout().split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const entry = JSON.parse(line);
        if (entry.msg === 'service listening') return entry.port;
      } catch {
        /* a partial line */
      }
    }
    if (p.child.exitCode !== null) throw new Error(`exited ${p.child.exitCode}: ${p.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`did not start: ${p.stderr()}`);
}

/** A port that was free a moment ago (for a node whose URL must be known before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
