// Two nodes in this process, as two operators' processes would be: one PostgreSQL database and one
// Redis (server mode: TEST_DATABASE_URL and TEST_REDIS_URL), a data directory each. Node A keeps
// the test environment's directory; node B gets its own, removed on close. The suites that need
// node B as a separate process (its own memory and event loop) use test/read-model/cluster.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { RunningService } from '../../service.js';
import { startNode, testEnvironment, type TestServer } from './server.js';

export interface TwoNodes {
  nodeA: RunningService;
  nodeB: RunningService;
  /** Node A as the account helpers (api.ts) take it. */
  serverA: TestServer;
  /** The environment both nodes started from (before `envOfA`). */
  env: Record<string, string>;
  /** Stops both nodes (B first), removes B's directory and the test environment. */
  close(): Promise<void>;
}

/**
 * Starts node A, then node B, on a fresh test environment with `overrides`. `envOfA` changes A's
 * environment only (a proxy in front of A's Redis, say).
 */
export async function startTwoNodes(
  overrides: Record<string, string> = {},
  envOfA: (env: Record<string, string>) => Record<string, string> = (env) => env,
): Promise<TwoNodes> {
  const { env, cleanup } = await testEnvironment(overrides);
  const dataDirB = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-node-b-'));
  let nodeA: RunningService | undefined;
  let nodeB: RunningService | undefined;
  const close = async () => {
    await nodeB?.close();
    await nodeA?.close();
    fs.rmSync(dataDirB, { recursive: true, force: true });
    await cleanup();
  };
  try {
    nodeA = await startNode(envOfA(env));
    nodeB = await startNode({ ...env, DATA_DIR: dataDirB });
  } catch (err) {
    await close();
    throw err;
  }
  const serverA: TestServer = { url: nodeA.url, service: nodeA, dataDir: env.DATA_DIR, env, close: async () => undefined };
  return { nodeA, nodeB, serverA, env, close };
}

/** The two nodes of `useTwoNodesInProcess`, set once its `beforeAll` has run. */
export interface NodePair {
  a: RunningService | null;
  b: RunningService | null;
  /** Node A as a TestServer (for the account helpers: its data dir holds the SMS outbox). */
  server: TestServer | null;
}

/** `startTwoNodes` as hooks: booted before the enclosing describe block's tests, closed after them. */
export function useTwoNodesInProcess(overrides: Record<string, string> = {}): NodePair {
  const state: NodePair = { a: null, b: null, server: null };
  let nodes: TwoNodes | undefined;
  beforeAll(async () => {
    nodes = await startTwoNodes(overrides);
    state.a = nodes.nodeA;
    state.b = nodes.nodeB;
    state.server = nodes.serverA;
  });
  afterAll(async () => {
    await nodes?.close();
  });
  return state;
}
