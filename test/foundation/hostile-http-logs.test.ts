// What a failed request leaves in the log: a fault of the service's own code is logged at error
// level with its stack; a state it is in on purpose (a publishing platform switched off in
// production: 503 publishing.error.unavailable) is an answer like any other, logged at info with
// its code, so an operator's error alerts do not fire on every such request.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../service.js';
import { loadConfig } from '../../src/config.js';
import { testEnvironment } from '../helpers/server.js';
import { loginAdmin } from '../helpers/api.js';

const lines: { level: number; msg: string; code?: string; path?: string }[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n')) if (line.startsWith('{')) lines.push(JSON.parse(line));
    done();
  },
});

let node: RunningService | null = null;
let cleanup: (() => Promise<void>) | null = null;
afterAll(async () => {
  await node?.close();
  await cleanup?.();
});

const INFO = 30;
const ERROR = 50;

describe('the log level of failed requests', () => {
  it('should log the 503 of a switched-off platform at info with its code, never at error', { timeout: 120_000 }, async () => {
    // Production without publishing credentials: TikTok and YouTube are switched off.
    const environment = await testEnvironment({ NODE_ENV: 'production', LOG_LEVEL: 'info' });
    cleanup = environment.cleanup;
    node = await startService(loadConfig(environment.env), pino({ level: 'info' }, logStream));
    const admin = await loginAdmin({ url: node.url, dataDir: environment.env.DATA_DIR } as never);
    const auth = '/content/api/v1/tiktok/auth';
    for (let i = 0; i < 3; i++) {
      const answer = await admin.api.get(auth);
      expect(answer.status).toBe(503);
      expect(answer.body.error_code).toBe('publishing.error.unavailable');
    }

    // The access log line of the last request is written after its answer: wait for it.
    while (lines.filter((l) => l.msg === 'request' && l.path === auth).length < 3) await new Promise((r) => setTimeout(r, 20));
    const refusals = lines.filter((l) => l.path === auth && l.msg !== 'request');
    expect(refusals).toHaveLength(3);
    expect(refusals.every((l) => l.level === INFO && l.code === 'publishing.error.unavailable')).toBe(true);
    expect(lines.filter((l) => l.level >= ERROR)).toEqual([]);
  });
});
