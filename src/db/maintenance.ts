// Database-wide upkeep that belongs to no one domain, as a service the jobs call
// (jobs/database-analyze.ts); its SQL is MaintenanceRepository's.
import type { MaintenanceRepository } from './maintenance-repository.js';

export class DatabaseMaintenance {
  constructor(private readonly maintenance: MaintenanceRepository) {}

  /** Refreshes the planner's statistics of every table (embedded PGlite has no autovacuum). */
  refreshPlannerStatistics(): Promise<void> {
    return this.maintenance.analyze();
  }
}
