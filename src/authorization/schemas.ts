// Request schemas of the roles and permissions endpoints (SPEC §4.2). Limits SPEC leaves open are
// ours (docs/foundation.md): names are lower-case identifiers, texts are bounded.
import { z } from 'zod';

/** `<verb>:<noun>`, e.g. `create:content`, `update:any_content`. */
const PERMISSION_NAME_RE = /^[a-z][a-z_]*:[a-z][a-z_]*$/;
/** A role name is stored on users.role: keep it a plain identifier (`end_user`, `moderator`). */
const ROLE_NAME_RE = /^[a-z][a-z0-9_]*$/;

const description = z.string().trim().max(500);

export const createPermissionBody = z.strictObject({
  name: z.string().trim().max(64).regex(PERMISSION_NAME_RE, 'must have the form <verb>:<noun> (lower-case letters and underscores)'),
  description: description.min(1, 'required'),
});

export const createRoleBody = z.strictObject({
  name: z.string().trim().min(2).max(50).regex(ROLE_NAME_RE, 'lower-case letters, digits and underscores, starting with a letter'),
  description: description.optional(),
  permission_ids: z.array(z.string().max(64)).max(200),
});

export const listPermissionsQuery = z.object({
  /** Comma-separated role names (trimmed, without repeats, at most 100); none means every permission. */
  role_names: z
    .string()
    .max(2000)
    .optional()
    .transform((value) =>
      [
        ...new Set(
          (value ?? '')
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        ),
      ].slice(0, 100),
    ),
});

/** Most roles one user may hold. */
export const MAX_ROLES_PER_USER = 20;

export const userRolesParams = z.object({ userId: z.uuid('must be a user id') });
export const roleIdParams = z.object({ id: z.uuid('must be a role id') });

/** PUT /users/{userId}/roles: the set replaces the user's roles (repeats dropped, order kept). */
export const assignRolesBody = z.strictObject({
  role_names: z
    .array(z.string().trim().min(1).max(50))
    .min(1, 'a user holds at least one role')
    .max(MAX_ROLES_PER_USER)
    .describe('Names of existing roles; the first of admin, moderator, broker, end_user (else the first named) becomes the primary `role`'),
});

/** PUT /roles/{id}: each field sent changes; permission_ids replaces the role's grants. */
export const updateRoleBody = z
  .strictObject({
    description: description.optional(),
    permission_ids: z.array(z.string().max(64)).max(200).optional().describe('Every permission the role grants from now on'),
    is_active: z.boolean().optional().describe('An inactive role grants nothing'),
  })
  .refine((b) => b.description !== undefined || b.permission_ids !== undefined || b.is_active !== undefined, {
    message: 'at least one of description, permission_ids, is_active',
  });

export type AssignRolesInput = z.output<typeof assignRolesBody>;
export type UpdateRoleInput = z.output<typeof updateRoleBody>;

export const userRolesView = z.object({
  user_id: z.string(),
  role_names: z.array(z.string()),
});

export type UserRolesView = z.output<typeof userRolesView>;

export type CreatePermissionInput = z.infer<typeof createPermissionBody>;
export type CreateRoleInput = z.infer<typeof createRoleBody>;

// Response shapes (SPEC §2.7), also used for the OpenAPI document.
export const permissionView = z.object({
  _id: z.string(),
  name: z.string(),
  description: z.string(),
  is_active: z.boolean(),
  created_at: z.string(),
});

export const roleView = z.object({
  _id: z.string(),
  name: z.string(),
  description: z.string(),
  permission_ids: z.array(z.string()),
  permission_names: z.array(z.string()),
  is_active: z.boolean(),
  created_at: z.string(),
});

export type PermissionView = z.infer<typeof permissionView>;
export type RoleView = z.infer<typeof roleView>;
