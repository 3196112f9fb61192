// The process as an operator runs it (`node --import tsx main.ts`): a bad setting stops it with one
// line; SIGTERM stops it cleanly (exit 0, data directory unlocked); a second process on the same
// embedded DATA_DIR is refused. Always embedded mode: the lock guards PGlite's directory.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpChildren, freshDataDir, listeningPort, startChild } from '../helpers/child-process.js';

afterAll(() => cleanUpChildren());

/** `node --import tsx main.ts`: the sources, as `npm run start:dev` runs them. */
const startProcess = (env: Record<string, string>) => startChild(['--import', 'tsx', 'main.ts'], env);
const dataDir = freshDataDir;

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
