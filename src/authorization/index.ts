// The public surface of src/authorization/: what other domains and the doors use of it.
export { ADMIN_ROLE, DEFAULT_ROLE } from './catalogue.js';
export type { RolePermissions } from './role-permissions.js';
export {
  assignRolesBody,
  createPermissionBody,
  createRoleBody,
  listPermissionsQuery,
  permissionView,
  roleIdParams,
  roleView,
  updateRoleBody,
  userRolesParams,
  userRolesView,
} from './schemas.js';
export type { StaffReach } from './staff-reach.js';
