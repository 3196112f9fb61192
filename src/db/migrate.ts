// Applies the SQL files of src/db/migrations in name order, each once, each in its own
// transaction. Nodes starting together serialise on an advisory lock, so exactly one applies
// a given file. Files are plain PostgreSQL 15 SQL that PGlite (PostgreSQL 18) runs too.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from './handle.js';
import type { Logger } from '../shared/logger.js';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Advisory lock key that serialises migrations and start-up seeding across nodes. */
export const STARTUP_LOCK_KEY = 7_100_001;

export async function applyMigrations(handle: DatabaseHandle, log: Logger): Promise<string[]> {
  const files = fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  await handle.execScript('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
  const done = new Set((await handle.rows<{ name: string }>(sql`select name from schema_migrations`)).map((r) => r.name));
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file)) continue;
    const body = fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
    const name = file.replace(/'/g, "''");
    await handle.execScript(`BEGIN;\n${body}\n;INSERT INTO schema_migrations (name) VALUES ('${name}');\nCOMMIT;`);
    log.info({ migration: file }, 'migration applied');
    applied.push(file);
  }
  return applied;
}
