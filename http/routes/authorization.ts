// {authorization_api} = /authorization/api/v1 (SPEC §4.2): permissions and roles.
import { z } from 'zod';
import { defineRoute, type RouteModule } from '../route.js';
import {
  createPermissionBody, createRoleBody, listPermissionsQuery, permissionView, roleView,
} from '../../src/authorization/schemas.js';

const base = '/authorization/api/v1';
const tag = 'authorization';

export const authorizationRoutes: RouteModule = (_app, services) => {
  const { roles } = services;
  return [
    defineRoute({
      method: 'GET', path: `${base}/permissions`, tag, auth: 'public',
      summary: 'List permissions; with role_names (comma-separated), the active permissions those roles grant',
      query: listPermissionsQuery, errorStatuses: [400, 500],
      responseData: z.object({ permission_names: z.array(z.string()), permissions: z.array(permissionView) }),
      handler: async ({ query }) => ({
        message: 'Permissions',
        data: await roles.listPermissions(query.role_names),
      }),
    }),
    defineRoute({
      method: 'POST', path: `${base}/permissions`, tag, auth: 'user', permission: 'create:permission',
      summary: 'Create a permission named <verb>:<noun>',
      body: createPermissionBody, successStatus: 201, responseData: permissionView, errorStatuses: [400, 401, 403, 500],
      handler: async ({ body }) => ({ status: 201, message: 'Permission created', data: await roles.createPermission(body) }),
    }),
    defineRoute({
      method: 'GET', path: `${base}/roles`, tag, auth: 'user', permission: 'read:role',
      summary: 'List roles with their permissions',
      responseData: z.object({ items: z.array(roleView) }), errorStatuses: [401, 403, 500],
      handler: async () => ({ message: 'Roles', data: { items: await roles.listRoles() } }),
    }),
    defineRoute({
      method: 'POST', path: `${base}/roles`, tag, auth: 'user', permission: 'create:role',
      summary: 'Create a role granting existing permissions',
      body: createRoleBody, successStatus: 201, responseData: roleView, errorStatuses: [400, 401, 403, 500],
      handler: async ({ body }) => ({ status: 201, message: 'Role created', data: await roles.createRole(body) }),
    }),
  ];
};
