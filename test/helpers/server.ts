// Boots the real service in this test process on a free port: embedded PostgreSQL in a fresh
// temporary directory by default, or a fresh database on TEST_DATABASE_URL's server and a private
// key prefix on TEST_REDIS_URL when those are set (the CI's second pass).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startService, type RunningService } from '../../service.js';
import type { ServiceSeams } from '../../src/services.js';

export const ADMIN_PHONE = '+84909999999';
export const ADMIN_PASSWORD = 'admin-password-1';

export interface TestServer {
  url: string;
  service: RunningService;
  dataDir: string;
  /** The environment the server was started with (to start a second node on the same storage). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Creates an empty database on the TEST_DATABASE_URL server; returns its URL and a dropper. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL!;
  const name = `revs_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** The environment of a fresh test node (temp data dir, fresh database, private Redis prefix). */
export async function testEnvironment(overrides: Record<string, string> = {}): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-test-'));
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    BCRYPT_ROUNDS: '4',
    RATE_LIMIT_SCALE: '100',
    ADMIN_PHONE_NUMBER: ADMIN_PHONE,
    ADMIN_PASSWORD,
    SHUTDOWN_TIMEOUT_MS: '3000',
  };
  let drop: (() => Promise<void>) | null = null;
  if (process.env.TEST_DATABASE_URL) {
    const created = await createTestDatabase();
    env.DATABASE_URL = created.url;
    drop = created.drop;
  } else {
    const template = inject('pgliteTemplate');
    if (template && fs.existsSync(template)) fs.cpSync(template, path.join(dataDir, 'pgdata'), { recursive: true });
  }
  // TEST_MEDIA_STORAGE=s3: the node keeps its media in a fresh bucket of the test setup's S3 API
  // server (test/helpers/s3-server.ts), for running a media test file against the object store.
  if (process.env.TEST_MEDIA_STORAGE === 's3' && overrides.MEDIA_STORAGE === undefined) {
    const { createTestBucket } = await import('./s3-server.js');
    Object.assign(env, (await createTestBucket()).env());
  }
  if (process.env.TEST_REDIS_URL) {
    env.REDIS_URL = process.env.TEST_REDIS_URL;
    env.REDIS_PREFIX = `revs-test-${randomBytes(4).toString('hex')}:`;
  }
  Object.assign(env, overrides);
  return {
    env,
    cleanup: async () => {
      if (drop) await drop().catch(() => undefined);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts a node with the given environment (no cleanup of storage on close). */
export async function startNode(env: Record<string, string>, seams: ServiceSeams = {}): Promise<RunningService> {
  const config = loadConfig(env);
  return startService(config, createLogger(env.LOG_LEVEL ?? 'silent'), seams);
}

/** A node started with startNode, as the account helpers (api.ts) take it; closing it stays the caller's. */
export function asTestServer(node: RunningService): TestServer {
  return { url: node.url, service: node, dataDir: node.config.dataDir, env: {}, close: async () => undefined };
}

export async function bootServer(overrides: Record<string, string> = {}, seams: ServiceSeams = {}): Promise<TestServer> {
  const { env, cleanup } = await testEnvironment(overrides);
  const service = await startNode(env, seams);
  return {
    url: service.url,
    service,
    dataDir: env.DATA_DIR,
    env,
    close: async () => {
      await service.close();
      await cleanup();
    },
  };
}
