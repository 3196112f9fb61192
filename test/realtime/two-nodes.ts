// Two in-process nodes on one database and one Redis prefix (server mode only), booted before the
// enclosing describe block's tests and closed after them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startNode, testEnvironment, type TestServer } from '../helpers/server.js';
import type { RunningService } from '../../service.js';

export interface TwoNodes {
  a: RunningService | null;
  b: RunningService | null;
  /** Node A as a TestServer (for the account helpers: its data dir holds the SMS outbox). */
  server: TestServer | null;
}

export function twoNodes(overrides: Record<string, string> = {}): TwoNodes {
  const state: TwoNodes = { a: null, b: null, server: null };
  let cleanup: () => Promise<void>;
  let dataDirB: string;
  beforeAll(async () => {
    const environment = await testEnvironment(overrides);
    cleanup = environment.cleanup;
    state.a = await startNode(environment.env);
    dataDirB = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-node-b-'));
    state.b = await startNode({ ...environment.env, DATA_DIR: dataDirB });
    state.server = { url: state.a.url, service: state.a, dataDir: environment.env.DATA_DIR, env: environment.env, close: async () => undefined };
  });
  afterAll(async () => {
    await state.b?.close();
    await state.a?.close();
    if (dataDirB) fs.rmSync(dataDirB, { recursive: true, force: true });
    await cleanup?.();
  });
  return state;
}
