// Database-wide upkeep that belongs to no one table.
import { sql } from 'drizzle-orm';
import type { Queryable } from './client.js';

export class MaintenanceRepository {
  constructor(private readonly db: Queryable) {}

  /** Refreshes the planner's statistics of every table. */
  async analyze(): Promise<void> {
    await this.db.rows(sql`analyze`);
  }
}
