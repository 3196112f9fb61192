// Builds, once per run, an embedded database directory with every migration applied; each test
// server starts from a copy of it (initdb in PGlite takes seconds, a copy milliseconds). Starts the
// S3 API server of the S3 tests (test/s3-setup.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../src/config.js';
import { startService } from '../service.js';
import { createLogger } from '../src/shared/logger.js';
import { startS3Server } from './s3-setup.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    /** The S3 API server of the S3 tests ('' when none runs: test/helpers/s3-server.ts). */
    s3Endpoint: string;
  }
}

export default async function setup(project: TestProject) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-template-'));
  if (!process.env.TEST_DATABASE_URL) {
    const config = loadConfig({ DATA_DIR: root, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', SCHEDULER_ENABLED: 'false', VIDEO_WORKERS: '0' });
    const service = await startService(config, createLogger('silent'));
    await service.close();
  }
  project.provide('pgliteTemplate', path.join(root, 'pgdata'));
  const s3 = await startS3Server();
  project.provide('s3Endpoint', s3.endpoint);
  return () => {
    s3.stop();
    fs.rmSync(root, { recursive: true, force: true });
  };
}
