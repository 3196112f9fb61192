// Helpers shared by the block tests: the block endpoints and a follow.
import type { TestUser } from '../helpers/api.js';

export const AUTH = '/auth/api/v1';
export const UNKNOWN_USER = '3f1c2a4e-8b7d-4c6e-9a1b-2c3d4e5f6a7b';

export const blockPath = (userId: string) => `${AUTH}/users/${userId}/block`;
export const block = (from: TestUser, userId: string) => from.api.post(blockPath(userId));
export const unblock = (from: TestUser, userId: string) => from.api.delete(blockPath(userId));
export const blockedList = (from: TestUser, query = '') => from.api.get(`${AUTH}/users/blocked${query}`);
export const follow = (from: TestUser, userId: string) => from.api.post(`${AUTH}/users/${userId}/follow`, undefined, { headers: { 'x-user-id': from.userId } });
export const profileOf = (viewer: TestUser, userId?: string) => viewer.api.get(`${AUTH}/user/me${userId ? `?user_id=${userId}` : ''}`);

// Reactions (CONTRACT §21: none to the other's items, comments or messages across a block).
const SNS = '/sns/api/v1';
export const likeItem = (from: TestUser, contentId: string) => from.api.post(`/api/v1/content/${contentId}/reactions`);
export const unlikeItem = (from: TestUser, contentId: string) => from.api.delete(`/api/v1/content/${contentId}/reactions`);
export const reactToComment = (from: TestUser, commentId: string, emoji = '👍') => from.api.post(`${SNS}/comments/${commentId}/reactions`, { emoji });
export const reactToMessage = (from: TestUser, messageId: string, emoji = '👍') => from.api.post(`${SNS}/chat/messages/${messageId}/reactions`, { emoji });
export const unreactToMessage = (from: TestUser, messageId: string, emoji = '👍') =>
  from.api.request('DELETE', `${SNS}/chat/messages/${messageId}/reactions`, { body: { emoji } });
