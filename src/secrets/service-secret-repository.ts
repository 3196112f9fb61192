// Queries on the `service_secrets` table (migration 0001). A domain of its own, below auth,
// two-factor, publishing and push, which all draw their keys from it: in src/shared/ it would make
// the base import src/db/'s Repository, and src/db/ keeps only the connection and the migrations.
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
