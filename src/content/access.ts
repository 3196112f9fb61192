// Who may see and who may change a content item: the access rules the content service and the
// features acting on an item (uploads, publishing, promotion, comments, listings) share.
import { can, type Caller } from '../shared/caller.js';
import { notFound, type AppError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import type { ContentMediaRow, ContentRepository, ContentRow } from './content-repository.js';
import type { Viewer } from './serialise.js';

export const ADMIN_CONTENT_PERMISSION = 'update:any_content';
const CONTACT_PERMISSION = 'read:contact';

export const viewerOf = (caller: Caller | null): Viewer => ({ canReadContact: !!caller && can(caller, CONTACT_PERMISSION) });

/** Whether the caller may change an item and its media: its uploader and administrators may. */
export const mayManageContent = (caller: Caller, row: Pick<ContentRow, 'uploader_id'>): boolean =>
  row.uploader_id === caller.userId || can(caller, ADMIN_CONTENT_PERMISSION);

export const contentNotFound = () => notFound('content.error.not_found', 'Content not found', { field: 'id', constraint: 'existing content' });

/** The answers of findManageableContent: each feature names its refusals in its own codes. */
export interface ContentAccessErrors {
  missing?: () => AppError;
  notAllowed: () => AppError;
}

/**
 * A live item `who` may act on, with its media. A Caller is judged by mayManageContent (uploader or
 * administrator); a bare user id must be the uploader, for acts done in the uploader's own name
 * (publishing to their accounts, promoting with their money).
 */
export async function findManageableContent(
  contents: ContentRepository,
  who: Caller | string,
  id: string,
  errors: ContentAccessErrors,
): Promise<ContentMediaRow> {
  const missing = errors.missing ?? contentNotFound;
  // A malformed id names no item; the query would fail on it rather than find nothing.
  if (!isUuid(id)) throw missing();
  const row = await contents.findMedia(id);
  if (!row) throw missing();
  const allowed = typeof who === 'string' ? row.uploader_id === who : mayManageContent(who, row);
  if (!allowed) throw errors.notAllowed();
  return row;
}

/**
 * Whether the caller may see a live item, and so comment on it, react to it and read its comments:
 * a published (`completed`) item everyone may; any other only its uploader and administrators.
 */
export const mayViewContent = (caller: Caller | null, row: Pick<ContentRow, 'uploader_id' | 'status'>): boolean =>
  row.status === 'completed' || (!!caller && mayManageContent(caller, row));
