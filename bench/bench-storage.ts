// Where a bench's service keeps its data: a temporary directory in embedded mode; in server mode
// also a fresh database on the bench's PostgreSQL server and a Redis key prefix of its own, all
// removed by `cleanUp`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { runOnServer } from './bench-helpers.js';

export interface BenchStorage {
  mode: 'embedded' | 'server';
  dataDir: string;
  /** DATABASE_URL, REDIS_URL, REDIS_PREFIX in server mode; nothing in embedded mode. */
  env: Record<string, string>;
  cleanUp: () => Promise<void>;
}

/** `label` names the directory, database and prefix (`read` → revs_bench_read_…). */
export async function openBenchStorage(mode: 'embedded' | 'server', label: string, server: { databaseUrl: string; redisUrl: string }): Promise<BenchStorage> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `revs-bench-${label}-`));
  if (mode === 'embedded') return { mode, dataDir, env: {}, cleanUp: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  const name = `revs_bench_${label}_${randomBytes(5).toString('hex')}`;
  const prefix = `revs-bench-${label}-${randomBytes(4).toString('hex')}:`;
  await runOnServer(server.databaseUrl, `CREATE DATABASE ${name}`);
  const url = new URL(server.databaseUrl);
  url.pathname = `/${name}`;
  return {
    mode,
    dataDir,
    env: { DATABASE_URL: url.toString(), REDIS_URL: server.redisUrl, REDIS_PREFIX: prefix },
    cleanUp: async () => {
      await runOnServer(server.databaseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((err) => console.error('drop failed', err));
      const redis = new Redis(server.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 })) if ((keys as string[]).length) await redis.del(...(keys as string[]));
      } catch (err) {
        console.error('redis clean-up failed', err);
      } finally {
        redis.disconnect();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
