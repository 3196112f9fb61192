// {authorization_api} = /authorization/api/v1 (SPEC §4.2): permissions and roles.
import { z } from 'zod';
import { defineRoute, routeModule } from '../route.js';
import {
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
} from '../../src/authorization/index.js';

const base = '/authorization/api/v1';
const tag = 'authorization';

export const authorizationRoutes = routeModule(['roles'], (_app, services) => {
  const { roles } = services;
  return [
    defineRoute({
      method: 'GET',
      path: `${base}/permissions`,
      tag,
      auth: 'public',
      summary: 'List permissions; with role_names (comma-separated), the active permissions those roles grant',
      query: listPermissionsQuery,
      errorStatuses: [400, 500],
      responseData: z.object({ permission_names: z.array(z.string()), permissions: z.array(permissionView) }),
      handler: async ({ query }) => ({
        message: 'Permissions',
        data: await roles.listPermissions(query.role_names),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/permissions`,
      tag,
      auth: 'user',
      permission: 'create:permission',
      summary: 'Create a permission named <verb>:<noun>',
      body: createPermissionBody,
      successStatus: 201,
      responseData: permissionView,
      errorStatuses: [400, 401, 403, 500],
      handler: async ({ caller, body }) => ({ status: 201, message: 'Permission created', data: await roles.createPermission(caller, body) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/roles`,
      tag,
      auth: 'user',
      permission: 'read:role',
      summary: 'List roles with their permissions',
      responseData: z.object({ items: z.array(roleView) }),
      errorStatuses: [401, 403, 500],
      handler: async () => ({ message: 'Roles', data: { items: await roles.listRoles() } }),
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/roles`,
      tag,
      auth: 'user',
      permission: 'create:role',
      summary: 'Create a role granting existing permissions',
      body: createRoleBody,
      successStatus: 201,
      responseData: roleView,
      errorStatuses: [400, 401, 403, 500],
      handler: async ({ caller, body }) => ({ status: 201, message: 'Role created', data: await roles.createRole(caller, body) }),
    }),
    defineRoute({
      method: 'PUT',
      path: `${base}/roles/:id`,
      tag,
      auth: 'user',
      permission: 'update:role',
      summary:
        'Change a role: description, the permissions it grants (the set replaces them), whether it is active. The admin role cannot be made inactive nor lose assign:role or update:role (409)',
      params: roleIdParams,
      body: updateRoleBody,
      responseData: roleView,
      errorStatuses: [400, 401, 403, 409, 429, 503],
      handler: async ({ caller, params, body }) => ({ message: 'Role updated', data: await roles.updateRole(caller, params.id, body) }),
    }),
    defineRoute({
      method: 'PUT',
      path: `${base}/users/:userId/roles`,
      tag,
      auth: 'user',
      permission: 'assign:role',
      summary:
        "Replace the roles a user holds; counts from the user's next request and socket event on every node. The last active admin cannot lose the admin role (409); a user holding, or roles granting, a permission the caller lacks: 403",
      params: userRolesParams,
      body: assignRolesBody,
      responseData: userRolesView,
      errorStatuses: [400, 401, 403, 404, 409, 429, 503],
      handler: async ({ caller, params, body }) => ({ message: 'Roles assigned', data: await roles.assignRoles(caller, params.userId, body) }),
    }),
  ];
});
