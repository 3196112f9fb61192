// Database-wide upkeep that belongs to no one table.
import { sql } from 'drizzle-orm';
import { Repository } from './repository.js';

export class MaintenanceRepository extends Repository {
  /** Refreshes the planner's statistics of every table. */
  async analyze(): Promise<void> {
    await this.db.rows(sql`analyze`);
  }
}
