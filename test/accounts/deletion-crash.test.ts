// The erasure of a deleted account survives a crash halfway (CONTRACT §22): the service runs as a
// real process (`node --import tsx main.ts`) with ERASURE_STEP_PAUSE_MS (test only: a pause after
// each step), the account is deleted, the process is SIGKILLed once some steps are recorded and
// before the erasure finished, and a node started again on the same storage finishes it: the
// user's item, its media file and the row's personal fields are gone. Embedded mode (same DATA_DIR,
// the dead process's lock taken over) and server mode (same database and Redis) alike.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { ApiClient, uniquePhone, uniqueUsername } from '../helpers/api.js';
import { cleanUpChildren, freePort, startChild, type Child } from '../helpers/child-process.js';
import { startNode, testEnvironment } from '../helpers/server.js';
import type { RunningService } from '../../service.js';
import { fullBody } from '../content/fixtures.js';
import { storedMedia } from '../helpers/stored-media.js';
import { loadConfig } from '../../src/config.js';

let cleanup: (() => Promise<void>) | undefined;
let node: RunningService | undefined;
afterAll(async () => {
  cleanUpChildren();
  await node?.close();
  await cleanup?.();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The JSON log lines of the child with `msg`. */
const logLines = (child: Child, msg: string): any[] =>
  child
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        return null;
      }
    })
    .filter((entry) => entry?.msg === msg);

describe('account erasure across a crash', () => {
  it('should finish an erasure that a killed process left halfway, after a restart', { timeout: 240_000 }, async () => {
    const environment = await testEnvironment({ SCHEDULER_ENABLED: 'false', VIDEO_WORKERS: '0', JOB_LEASE_SECONDS: '2' });
    cleanup = environment.cleanup;
    const env = environment.env;
    const port = await freePort();
    const child = startChild(['--import', 'tsx', 'main.ts'], { ...env, PORT: String(port), LOG_LEVEL: 'info', ERASURE_STEP_PAUSE_MS: '1500' });
    const api = new ApiClient(`http://127.0.0.1:${port}`);
    await until(
      'the child to be ready',
      async () => {
        if (child.child.exitCode !== null) throw new Error(`child exited: ${child.stderr()}`);
        return (await api.get('/readyz').catch(() => null))?.status === 200 ? true : undefined;
      },
      90_000,
    );

    // A user with an item and a media file of it.
    const phone = uniquePhone();
    const password = 'password-123';
    expect(
      (await api.post('/auth/api/v1/register', { username: uniqueUsername('crash'), password, phone_number: phone, given_name: 'Crash', family_name: 'Test' }))
        .status,
    ).toBe(201);
    const outbox = fs
      .readFileSync(path.join(env.DATA_DIR, 'sms-outbox.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const code = outbox.reverse().find((e) => e.to === phone && e.purpose === 'register').code;
    expect((await api.post('/auth/api/v1/verify-otp', { phone_number: phone, otp: code })).status).toBe(200);
    const login = await api.post('/auth/api/v1/login', { phone_number: phone, password });
    const user = api.withToken(login.body.data.AccessToken);
    const userId: string = login.body.data.user.sub;
    const created = await user.post('/content/api/v1/content', fullBody());
    expect(created.status, created.text).toBe(201);
    const itemId: string = created.body.data.id;
    const stored = storedMedia({ config: loadConfig(env) });
    const mediaFile = `content/${itemId}/original.mp4`;
    await stored.write(mediaFile, 'video bytes');

    expect((await user.request('DELETE', '/auth/api/v1/user/me', { body: { password } })).status).toBe(202);
    // Some steps recorded, then killed without warning before the erasure finished.
    await until('two erasure steps', () => (logLines(child, 'erasure step done').filter((e) => e.userId === userId).length >= 2 ? true : undefined), 60_000);
    child.child.kill('SIGKILL');
    await child.exited;
    const doneBefore = logLines(child, 'erasure step done')
      .filter((e) => e.userId === userId)
      .map((e) => e.step);
    expect(logLines(child, 'account erased')).toEqual([]);
    expect(doneBefore.length).toBeGreaterThanOrEqual(2);

    // A node started again on the same storage takes the job up after its lease and finishes it.
    node = await startNode({ ...env, PORT: '0' });
    const db = node.app.database;
    const job = await until(
      'the erasure to finish',
      async () => {
        const [row] = await db.rows<{ finished_at: Date | null; attempts: number; steps_done: string[] }>(
          sql`select finished_at, attempts, steps_done from account_erasures where user_id = ${userId}`,
        );
        return row?.finished_at ? row : undefined;
      },
      60_000,
    );
    expect(job.attempts).toBeGreaterThanOrEqual(2);
    expect(job.steps_done).toEqual(expect.arrayContaining([...doneBefore, 'content', 'user']));
    const [left] = await db.rows<{ contents: number; phone: string; given_name: string }>(sql`
      select (select count(*)::int from contents where uploader_id = ${userId}) as contents, phone_number as phone, given_name
      from users where id = ${userId}`);
    expect(left).toEqual({ contents: 0, phone: `deleted:${userId}`, given_name: 'Deleted' });
    expect(await stored.exists(mediaFile)).toBe(false);
  });
});
