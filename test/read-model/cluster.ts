// The nodes a cache-truth test talks to: the one it changes things on, and the ones it reads
// from afterwards. One node (either mode) is the shared test server. Two nodes (server mode) are
// that node in this process plus a second one started as its own process, as an operator runs
// it, on the same database, Redis and data directory: the two share no memory, so nothing a node
// keeps for itself can make the other look right.
import { afterAll, beforeAll } from 'vitest';
import { ApiClient, type TestUser } from '../helpers/api.js';
import { useTestServer } from '../helpers/fixture.js';
import { startNode, testEnvironment, type TestServer } from '../helpers/server.js';
import { cleanUpChildren, listeningPort, startChild, type Child } from '../helpers/child-process.js';

/** A node the tests read from. */
export interface NodeRef {
  name: string;
  url: string;
}

export interface Cluster {
  /** Where every change is made; in this process, so fixtures reach its database and event bus. */
  primary: TestServer;
  /** The nodes read right after a change, in this order (the other node first). */
  readers: NodeRef[];
}

/** A client of `node`, signed in as `user` (anonymous for null). */
export const on = (node: NodeRef, user: TestUser | null): ApiClient => new ApiClient(node.url, user?.token ?? null);

/** One node: changes and reads on the same server. */
export function useOneNode(): () => Cluster {
  const booted = useTestServer();
  return () => ({ primary: booted.current, readers: [{ name: 'the node', url: booted.url }] });
}

/** How long the second node may take to boot (it compiles the sources on start). */
const SECOND_NODE_BOOT_MS = 90_000;

/**
 * Two nodes on one PostgreSQL database and one Redis (TEST_DATABASE_URL, TEST_REDIS_URL): node A
 * in this process, node B a child process. Changes are made on A; reads go to B, then A.
 */
export function useTwoNodes(): () => Cluster {
  let primary: TestServer | null = null;
  let nodeB: Child | null = null;
  let urlB = '';
  let cleanup: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    const environment = await testEnvironment();
    cleanup = environment.cleanup;
    const service = await startNode(environment.env);
    primary = { url: service.url, service, dataDir: environment.env.DATA_DIR, env: environment.env, close: async () => undefined };
    // The child logs at info: its "service listening" line names the port it got.
    nodeB = startChild(['--import', 'tsx', 'main.ts'], { ...environment.env, LOG_LEVEL: 'info' });
    urlB = `http://127.0.0.1:${await listeningPort(nodeB, SECOND_NODE_BOOT_MS)}`;
  }, SECOND_NODE_BOOT_MS + 30_000);

  afterAll(async () => {
    if (nodeB && nodeB.child.exitCode === null) {
      nodeB.child.kill('SIGTERM');
      await nodeB.exited;
    }
    cleanUpChildren();
    await primary?.service.close();
    await cleanup?.();
  }, 60_000);

  return () => {
    if (!primary || !nodeB) throw new Error('the nodes are not booted yet (use them inside a test or a later hook)');
    return {
      primary,
      readers: [
        { name: 'node B', url: urlB },
        { name: 'node A', url: primary.url },
      ],
    };
  };
}
