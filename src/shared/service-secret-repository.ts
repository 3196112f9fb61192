// Queries on the `service_secrets` table (migration 0001). It lives beside its one service
// (service-secrets.ts) in shared/ because auth, two-factor and publishing all draw their keys
// from it; src/db/ keeps only the connection and the migrations.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';

export class ServiceSecretRepository extends Repository {
  /** Stores `value` under `name` unless a value is already there (the first writer wins). */
  async insertIfAbsent(name: string, value: string): Promise<void> {
    await this.db.rows(sql`insert into service_secrets (name, value) values (${name}, ${value}) on conflict (name) do nothing`);
  }

  async findValue(name: string): Promise<string | undefined> {
    const [row] = await this.db.rows<{ value: string }>(sql`select value from service_secrets where name = ${name}`);
    return row?.value;
  }
}
