// Embedded mode durability: acknowledged writes survive a SIGKILL. The real process is spawned
// (`node --import tsx main.ts`), ~30 registrations are acknowledged (201), the process is killed
// without warning, and a new process on the same DATA_DIR (taking over the stale lock file)
// must still know every one of them.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient, uniquePhone, uniqueUsername } from '../helpers/api.js';
import { freePort } from '../helpers/child-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const AUTH = '/auth/api/v1';
const WRITES = 30;

interface Running {
  child: ChildProcess;
  output: () => string;
}

function start(dataDir: string, port: number): Running {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      BCRYPT_ROUNDS: '4',
      RATE_LIMIT_SCALE: '100',
      SCHEDULER_ENABLED: 'false',
      VIDEO_WORKERS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => (output = (output + d).slice(-20_000)));
  child.stderr.on('data', (d) => (output = (output + d).slice(-20_000)));
  return { child, output: () => output };
}

async function waitReady(api: ApiClient, running: Running, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null) throw new Error(`process exited (${running.child.exitCode}):\n${running.output()}`);
    try {
      if ((await api.get('/readyz')).status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not ready after ${timeoutMs} ms:\n${running.output()}`);
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));

const children: ChildProcess[] = [];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-durability-'));

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('embedded durability', () => {
  it('keeps every acknowledged registration across a SIGKILL and takes over the stale lock', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const api = new ApiClient(`http://127.0.0.1:${port}`);

    const first = start(dataDir, port);
    children.push(first.child);
    await waitReady(api, first);

    const acknowledged: { username: string; phone: string }[] = [];
    for (let i = 0; i < WRITES; i++) {
      const user = { username: uniqueUsername('dur'), phone: uniquePhone() };
      const res = await api.post(`${AUTH}/register`, {
        username: user.username,
        password: 'password-123',
        phone_number: user.phone,
        given_name: 'Du',
        family_name: 'Rable',
      });
      if (res.status === 201) acknowledged.push(user);
    }
    expect(acknowledged.length).toBe(WRITES);

    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(first.child.signalCode).toBe('SIGKILL');
    // The dead process's lock file is still there: the next start must take it over.
    expect(fs.existsSync(path.join(dataDir, 'service.lock'))).toBe(true);

    const second = start(dataDir, port);
    children.push(second.child);
    await waitReady(api, second);

    for (const user of acknowledged) {
      const again = await api.post(`${AUTH}/register`, {
        username: uniqueUsername('dup'),
        password: 'password-123',
        phone_number: user.phone,
        given_name: 'Du',
        family_name: 'Plicate',
      });
      expect(again.status, `phone of ${user.username}`).toBe(400);
      expect(again.body.error_code).toBe('auth.error.user_exists');
      const forgot = await api.post(`${AUTH}/forgot-password`, { phone_number: user.phone });
      expect(forgot.status, `forgot-password for ${user.username}`).toBe(200);
    }
    // The same usernames are taken too.
    const taken = await api.post(`${AUTH}/register`, {
      username: acknowledged[0].username,
      password: 'password-123',
      phone_number: uniquePhone(),
      given_name: 'A',
      family_name: 'B',
    });
    expect(taken.body.error_code).toBe('auth.error.user_exists');

    second.child.kill('SIGTERM');
    await exited(second.child);
    expect(second.child.exitCode).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'service.lock'))).toBe(false);
  });
});
