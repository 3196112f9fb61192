// Secrets the service makes for itself when the operator gives none (JWT key, encryption roots),
// kept in the `service_secrets` table so that restarts and every node of a deployment share them.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../db/client.js';

/** The stored secret `name`, created (32 random bytes, base64url) by whichever node asks first. */
export async function getOrCreateServiceSecret(database: DatabaseHandle, name: string, bytes = 32): Promise<string> {
  // Nodes racing here insert at most one row; everyone then reads the winner.
  await database.rows(sql`
    insert into service_secrets (name, value) values (${name}, ${randomBytes(bytes).toString('base64url')})
    on conflict (name) do nothing`);
  const [row] = await database.rows<{ value: string }>(sql`select value from service_secrets where name = ${name}`);
  return row.value;
}
