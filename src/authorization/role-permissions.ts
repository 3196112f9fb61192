// Which permission names each role holds, kept in memory because every authenticated request
// asks. A change (on any node) reaches every node's read model as role.permissions.changed and
// clears this at once; where the nodes cannot tell each other (caches not trusted: see
// src/read-model/relay.ts) it is read again every UNTRUSTED_MS, so a change is late by that at most.
import type { DomainEventBus } from '../event-bus.js';
import type { ReadModel } from '../read-model/index.js';
import type { RolesRepository } from './roles-repository.js';

const TRUSTED_MS = 60_000;
const UNTRUSTED_MS = 5_000;

export class RolePermissions {
  private cache = new Map<string, ReadonlySet<string>>();
  private loadedAt = 0;
  private loading: Promise<void> | null = null;
  /** Moved by every change, so a load that overlapped one is not trusted for long. */
  private version = 0;

  constructor(
    private readonly repository: RolesRepository,
    private readonly events: DomainEventBus,
    // Not its item cache: whose rows are content's.
    private readonly readModel: Omit<ReadModel, 'items'>,
  ) {
    readModel.onRolesChanged(() => this.forget());
  }

  async forRole(role: string): Promise<ReadonlySet<string>> {
    const maxAge = this.readModel.trusted() ? TRUSTED_MS : UNTRUSTED_MS;
    if (Date.now() - this.loadedAt > maxAge) await this.reload();
    return this.cache.get(role) ?? new Set();
  }

  /** What a user holding `roles` may do: the union of their grants. */
  async forRoles(roles: readonly string[]): Promise<ReadonlySet<string>> {
    if (roles.length === 1) return this.forRole(roles[0]);
    const union = new Set<string>();
    for (const role of roles) for (const permission of await this.forRole(role)) union.add(permission);
    return union;
  }

  /** After a change to roles or permissions is committed: every node reads them again. */
  changed(): Promise<void> {
    this.forget();
    return this.events.publishAndWait('role.permissions.changed', {});
  }

  /** A load under way may have read the old grants: the next caller starts a new one. */
  private forget(): void {
    this.version++;
    this.loadedAt = 0;
    this.loading = null;
  }

  private reload(): Promise<void> {
    if (this.loading) return this.loading;
    const version = this.version;
    const loading = (async () => {
      const rows = await this.repository.activeGrants();
      const next = new Map<string, Set<string>>();
      for (const row of rows) {
        if (!next.has(row.role)) next.set(row.role, new Set());
        next.get(row.role)!.add(row.permission);
      }
      this.cache = next;
      if (version === this.version) this.loadedAt = Date.now();
    })().finally(() => {
      if (this.loading === loading) this.loading = null;
    });
    this.loading = loading;
    return loading;
  }
}
