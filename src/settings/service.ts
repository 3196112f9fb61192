// Per-user settings (SPEC §2.5, §4.7). Only the values a user changed are stored, keyed by
// dotted path; reading merges them over the defaults. privacy.two_factor_enabled always comes
// from the account (users.two_factor_enabled).
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { badRequest } from '../shared/errors.js';
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

function setPath(tree: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = tree;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys[keys.length - 1]] = value;
}

export class SettingsService {
  constructor(private readonly app: AppContext) {}

  async get(userId: string): Promise<SettingsTree> {
    const [row] = await this.app.database.rows<{ overrides: Record<string, unknown> | null; two_factor_enabled: boolean }>(sql`
      select s.overrides, u.two_factor_enabled
      from users u left join user_settings s on s.user_id = u.id where u.id = ${userId}`);
    const tree = structuredClone(DEFAULT_SETTINGS) as unknown as Record<string, unknown>;
    for (const [path, value] of Object.entries(row?.overrides ?? {})) {
      // A stored path that no longer exists, or changed type, falls back to its default.
      const fallback = DEFAULT_LEAVES.get(path);
      if (fallback === undefined || READ_ONLY_PATHS.has(path) || typeof value !== typeof fallback) continue;
      setPath(tree, path, value);
    }
    setPath(tree, 'privacy.two_factor_enabled', Boolean(row?.two_factor_enabled));
    return tree as unknown as SettingsTree;
  }

  /** Applies the sent paths only; answers them (dotted) and the time of the change. */
  async update(userId: string, patch: SettingsPatch): Promise<{ updated_fields: string[]; timestamp: string }> {
    const leaves = flatten(patch as Record<string, unknown>).filter(([, v]) => v !== undefined) as [string, Leaf][];
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
    const changes = JSON.stringify(Object.fromEntries(leaves));
    // One statement: concurrent updates of different paths never overwrite each other.
    const [row] = await this.app.database.rows<{ updated_at: Date }>(sql`
      insert into user_settings (user_id, overrides) values (${userId}, ${changes}::jsonb)
      on conflict (user_id) do update
        set overrides = user_settings.overrides || excluded.overrides, updated_at = now()
      returning updated_at`);
    return { updated_fields: leaves.map(([path]) => path), timestamp: new Date(row.updated_at).toISOString() };
  }
}
