// The post a campaign promotes: an existing, non-deleted content item owned by the caller.
import { sql } from 'drizzle-orm';
import { forbidden, notFound } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { rowsOf, type SqlExecutor } from '../payments/sql-rows.js';

export async function assertOwnVideo(executor: SqlExecutor, userId: string, videoId: string, field = 'video_id'): Promise<void> {
  const missing = () => notFound('campaign.error.video_not_found', 'No such video', { field, constraint: 'an existing content id' });
  if (!isUuid(videoId)) throw missing();
  const [row] = await rowsOf<{ uploader_id: string }>(
    executor,
    sql`select uploader_id from contents where id = ${videoId} and deleted_at is null`,
  );
  if (!row) throw missing();
  if (row.uploader_id !== userId) throw forbidden('campaign.error.video_forbidden', 'Only the owner of a video can promote it');
}
