// The process as an operator runs it (`node --import tsx main.ts`): a bad setting stops it with one
// line; SIGTERM stops it cleanly (exit 0, data directory unlocked); a second process on the same
// embedded DATA_DIR is refused. Always embedded mode: the lock guards PGlite's directory.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh data directory, seeded from the migrated template when the suite has one. */
function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-process-'));
  dirs.push(dir);
  const template = inject('pgliteTemplate');
  if (template && fs.existsSync(template)) fs.cpSync(template, path.join(dir, 'pgdata'), { recursive: true });
  return dir;
}

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startProcess(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
    cwd: root,
    // Only what the service needs: nothing of the test run's own environment leaks in.
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
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Waits for the JSON log line that says the node listens, and returns its port. */
async function listeningPort(p: Started, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const line of p.stdout().split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const entry = JSON.parse(line);
        if (entry.msg === 'service listening') return entry.port;
      } catch {
        /* partial line */
      }
    }
    if (p.child.exitCode !== null) throw new Error(`exited ${p.child.exitCode}: ${p.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`did not start: ${p.stderr()}`);
}

describe('process', () => {
  it('refuses a bad setting with exit 1 and one stderr line naming the variable', async () => {
    const p = startProcess({ PORT: 'abc', DATA_DIR: dataDir() });
    expect(await p.exited).toBe(1);
    const lines = p.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('PORT');
    expect(p.stdout()).toBe('');
  });

  it('refuses a second process on the same DATA_DIR, and stops cleanly on SIGTERM', async () => {
    const dir = dataDir();
    const first = startProcess({ DATA_DIR: dir });
    const port = await listeningPort(first);
    const lockFile = path.join(dir, 'service.lock');
    expect(fs.existsSync(lockFile)).toBe(true);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });

    const second = startProcess({ DATA_DIR: dir });
    const secondCode = await second.exited;
    expect(secondCode).not.toBe(0);
    expect(second.stderr()).toContain('DATA_DIR');
    // The refused process left the first one's lock alone, and the first still serves.
    expect(fs.readFileSync(lockFile, 'utf8').trim()).toBe(String(first.child.pid));
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(fs.existsSync(lockFile)).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();

    // The directory is usable again: a new process opens the same data.
    const third = startProcess({ DATA_DIR: dir });
    await listeningPort(third);
    third.child.kill('SIGINT');
    expect(await third.exited).toBe(0);
    expect(fs.existsSync(lockFile)).toBe(false);
  }, 180_000);
});
