// The SQL of the read model's notices between nodes (postgres-relay.ts): a NOTIFY on the channel,
// and which nodes listen (their listener connections, by name, in pg_stat_activity). No table of
// its own: nothing stays behind when a user leaves.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';

export class ReadModelNoticeRepository extends Repository {
  async notify(channel: string, payload: string): Promise<void> {
    await this.db.rows(sql`select pg_notify(${channel}, ${payload})`);
  }

  /** The rest of each name of this database's connections that starts with `namePrefix`. */
  async listenerNames(namePrefix: string): Promise<string[]> {
    const [{ names }] = await this.db.rows<{ names: string[] }>(sql`
      select coalesce(array_agg(substr(application_name, ${namePrefix.length + 1})), '{}') as names
      from pg_stat_activity
      where datname = current_database() and starts_with(application_name, ${namePrefix})`);
    return names;
  }
}
