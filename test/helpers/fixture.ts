// The shared boot fixture: a test file (or describe block) that calls `useTestServer()` gets one
// real server booted before its tests and closed after them, instead of writing the same
// beforeAll/afterAll pair again.
import { afterAll, beforeAll } from 'vitest';
import { bootServer, type TestServer } from './server.js';

export class BootedServer {
  private server: TestServer | null = null;

  /** The running server; only inside tests and hooks that run after boot. */
  get current(): TestServer {
    if (!this.server) throw new Error('the test server is not booted yet (use it inside a test or a later hook)');
    return this.server;
  }

  get url(): string {
    return this.current.url;
  }

  /** Used by useTestServer's hooks. */
  async boot(overrides: Record<string, string>): Promise<void> {
    this.server = await bootServer(overrides);
  }

  async close(): Promise<void> {
    await this.server?.close();
    this.server = null;
  }
}

/**
 * Boots a server for the enclosing file or describe block, with optional env overrides; a
 * function is read when the server boots, after the hooks registered before it (a stand-in
 * service whose port the server must be given, say).
 */
export function useTestServer(overrides: Record<string, string> | (() => Record<string, string>) = {}): BootedServer {
  const booted = new BootedServer();
  beforeAll(() => booted.boot(typeof overrides === 'function' ? overrides() : overrides));
  afterAll(() => booted.close());
  return booted;
}
