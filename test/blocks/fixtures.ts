// Helpers shared by the block tests: the block endpoints and a follow.
import type { TestUser } from '../helpers/api.js';

export const AUTH = '/auth/api/v1';
export const UNKNOWN_USER = '3f1c2a4e-8b7d-4c6e-9a1b-2c3d4e5f6a7b';

export const blockPath = (userId: string) => `${AUTH}/users/${userId}/block`;
export const block = (from: TestUser, userId: string) => from.api.post(blockPath(userId));
export const unblock = (from: TestUser, userId: string) => from.api.delete(blockPath(userId));
export const blockedList = (from: TestUser, query = '') => from.api.get(`${AUTH}/users/blocked${query}`);
export const follow = (from: TestUser, userId: string) =>
  from.api.post(`${AUTH}/users/${userId}/follow`, undefined, { headers: { 'x-user-id': from.userId } });
export const profileOf = (viewer: TestUser, userId?: string) => viewer.api.get(`${AUTH}/user/me${userId ? `?user_id=${userId}` : ''}`);
