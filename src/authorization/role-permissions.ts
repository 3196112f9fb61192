// Which permission names each role holds, cached briefly in memory because every authenticated
// request asks. A change made on this node clears the cache at once; other nodes see it within
// CACHE_MS.
import type { DatabaseHandle } from '../db/client.js';
import { RolesRepository } from './roles-repository.js';

const CACHE_MS = 5_000;

export class RolePermissions {
  private cache = new Map<string, ReadonlySet<string>>();
  private loadedAt = 0;
  private loading: Promise<void> | null = null;

  private readonly repository: RolesRepository;

  constructor(database: DatabaseHandle) {
    this.repository = new RolesRepository(database);
  }

  async forRole(role: string): Promise<ReadonlySet<string>> {
    if (Date.now() - this.loadedAt > CACHE_MS) await this.reload();
    return this.cache.get(role) ?? new Set();
  }

  invalidate(): void {
    this.loadedAt = 0;
  }

  private reload(): Promise<void> {
    this.loading ??= (async () => {
      try {
        const rows = await this.repository.activeGrants();
        const next = new Map<string, Set<string>>();
        for (const row of rows) {
          if (!next.has(row.role)) next.set(row.role, new Set());
          next.get(row.role)!.add(row.permission);
        }
        this.cache = next;
        this.loadedAt = Date.now();
      } finally {
        this.loading = null;
      }
    })();
    return this.loading;
  }
}
