// Which content a user may publish: their own, not deleted, completed, with its original video
// file present under MEDIA_DIR (CONTRACT: contents.video.original_path).
import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { conflict, forbidden, notFound } from '../shared/errors.js';
import { mediaPath } from '../shared/media-url.js';

export interface PublishableVideo {
  contentId: string;
  filePath: string;
  size: number;
}

export async function findPublishableVideo(database: DatabaseHandle, config: Config, contentId: string, userId: string): Promise<PublishableVideo> {
  const [row] = await database.rows<{ uploader_id: string; status: string; original_path: string | null }>(sql`
    select uploader_id, status, video->>'original_path' as original_path
    from contents where id = ${contentId}::uuid and deleted_at is null`);
  if (!row) throw notFound('content.error.not_found', 'Content not found', { field: 'id', constraint: 'existing content' });
  if (row.uploader_id !== userId) throw forbidden('publishing.error.not_owner', 'Only the uploader can publish this content');
  const notReady = (why: string) => conflict('publishing.error.content_not_ready', `The content cannot be published yet: ${why}`, { field: 'id', constraint: 'completed content with a video' });
  if (row.status !== 'completed') throw notReady(`its status is ${row.status}`);
  if (!row.original_path) throw notReady('it has no video file');
  let filePath: string;
  try {
    filePath = mediaPath(config, row.original_path);
  } catch {
    throw notReady('its video file is missing');
  }
  const stat = await fs.promises.stat(filePath).catch(() => null);
  if (!stat?.isFile() || stat.size === 0) throw notReady('its video file is missing');
  return { contentId, filePath, size: stat.size };
}
