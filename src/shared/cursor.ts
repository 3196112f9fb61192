// Opaque keyset cursors for lists ordered by (created_at, id): the client gets a base64url
// token and sends it back unchanged. Used by comment, reply and chat-message lists.
import { z } from 'zod';
import { badRequest } from './errors.js';
import { isUuid } from './ids.js';

export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString('base64url');
}

const cursorShape = z.tuple([z.iso.datetime(), z.string().refine(isUuid)]);

/** Decodes a cursor from a client; a token we did not make is 400. */
export function decodeCursor(cursor: string | undefined): KeysetPosition | null {
  if (cursor === undefined || cursor === '') return null;
  try {
    const parsed = cursorShape.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (parsed.success) return { createdAt: new Date(parsed.data[0]), id: parsed.data[1] };
  } catch {
    /* falls through to the error below */
  }
  throw badRequest('validation.error.invalid_cursor', 'Invalid cursor: cursor is not one this service returned', {
    field: 'cursor',
    constraint: 'opaque cursor from a previous page',
  });
}

/** Query schema shared by every cursor-paged list: `limit` (default 20, 1–100) and `cursor`. */
export const pageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(512).optional(),
});

export type PageQuery = z.infer<typeof pageQuery>;

/** Splits a `limit + 1` fetch into the page and its continuation. */
export function pageOf<R extends { created_at: Date; id: string }>(rows: R[], limit: number): { page: R[]; hasMore: boolean; nextCursor: string | null } {
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return {
    page,
    hasMore,
    nextCursor: hasMore && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
  };
}
