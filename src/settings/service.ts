// Per-user settings (SPEC §2.5, §4.7). Only the values a user changed are stored, keyed by
// dotted path; reading merges them over the defaults. privacy.two_factor_enabled always comes
// from the account (users.two_factor_enabled). A change of privacy.session_timeout publishes
// `user.changed`: every node's cached session checks of the user (src/auth/caller.ts) are dropped,
// so the new timeout holds from the next request. Nothing else cached reads a setting (the
// notification preferences are read from the database when used), so other changes publish nothing.
import type { AppContext } from '../context.js';
import { badRequest } from '../shared/errors.js';
import type { SettingsRepository } from './settings-repository.js';
import { DEFAULT_SETTINGS, READ_ONLY_PATHS, type SettingsPatch, type SettingsTree } from './schemas.js';

type Leaf = boolean | number;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Leaf values of a tree by dotted path, in the order they appear. */
function flatten(tree: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(tree).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return isPlainObject(value) ? flatten(value, path) : [[path, value] as [string, unknown]];
  });
}

const DEFAULT_LEAVES = new Map(flatten(DEFAULT_SETTINGS));

function setPath(tree: SettingsTree, path: string, value: unknown): void {
  const keys = path.split('.');
  let node: Record<string, unknown> = tree;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys[keys.length - 1]] = value;
}

/** The settings a cached read depends on: changing one publishes `user.changed`. */
const CACHED_PATHS = new Set(['privacy.session_timeout']);
/** Whether the account has two-factor sign-in on (the account's own flag, in src/auth/). */
export interface TwoFactorFlag {
  twoFactorEnabled(userId: string): Promise<boolean>;
}

export class SettingsService {
  constructor(
    private readonly app: Pick<AppContext, 'events'>,
    private readonly repository: SettingsRepository,
    private readonly users: TwoFactorFlag,
  ) {}

  async get(userId: string): Promise<SettingsTree> {
    const [overrides, twoFactorEnabled] = await Promise.all([this.repository.findOverrides(userId), this.users.twoFactorEnabled(userId)]);
    const tree = structuredClone(DEFAULT_SETTINGS);
    for (const [path, value] of Object.entries(overrides ?? {})) {
      // A stored path that no longer exists, or changed type, falls back to its default.
      const fallback = DEFAULT_LEAVES.get(path);
      if (fallback === undefined || READ_ONLY_PATHS.has(path) || typeof value !== typeof fallback) continue;
      setPath(tree, path, value);
    }
    setPath(tree, 'privacy.two_factor_enabled', twoFactorEnabled);
    return tree;
  }

  /** Applies the sent paths only; answers them (dotted) and the time of the change. */
  async update(userId: string, patch: SettingsPatch): Promise<{ updated_fields: string[]; timestamp: string }> {
    const leaves = flatten(patch).filter(([, v]) => v !== undefined) as [string, Leaf][];
    for (const [path] of leaves) {
      if (READ_ONLY_PATHS.has(path)) {
        throw badRequest('settings.error.read_only', `${path} cannot be changed here; use POST /content/api/v1/auth/2fa/toggle`, {
          field: path,
          constraint: 'read-only',
        });
      }
    }
    if (!leaves.length) {
      throw badRequest('settings.error.empty_update', 'Send at least one setting to change', { field: 'body', constraint: 'at least one setting' });
    }
    const updatedAt = await this.repository.mergeOverrides(userId, Object.fromEntries(leaves));
    if (leaves.some(([path]) => CACHED_PATHS.has(path))) await this.app.events.publishAndWait('user.changed', { userId });
    const presence = leaves.find(([path]) => path === 'privacy.show_presence');
    if (presence) await this.app.events.publishAndWait('presence.visibility_changed', { userId, shown: presence[1] === true });
    return { updated_fields: leaves.map(([path]) => path), timestamp: updatedAt.toISOString() };
  }
}
