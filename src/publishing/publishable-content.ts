// Which content a user may publish: their own, not deleted, completed, with its original video
// file present under MEDIA_DIR (CONTRACT: contents.video.original_path).
import fs from 'node:fs';
import type { Config } from '../config.js';
import type { ContentRepository } from '../content/content-repository.js';
import { findManageableContent } from '../content/access.js';
import { conflict, forbidden } from '../shared/errors.js';
import { mediaPath } from '../shared/media-url.js';

export interface PublishableVideo {
  contentId: string;
  filePath: string;
  size: number;
}

export async function findPublishableVideo(contents: ContentRepository, config: Config, contentId: string, userId: string): Promise<PublishableVideo> {
  const row = await findManageableContent(contents, userId, contentId, {
    notAllowed: () => forbidden('publishing.error.not_owner', 'Only the uploader can publish this content'),
  });
  const notReady = (why: string) => conflict('publishing.error.content_not_ready', `The content cannot be published yet: ${why}`, { field: 'id', constraint: 'completed content with a video' });
  if (row.status !== 'completed') throw notReady(`its status is ${row.status}`);
  const originalPath = row.video?.original_path;
  if (!originalPath) throw notReady('it has no video file');
  let filePath: string;
  try {
    filePath = mediaPath(config, originalPath);
  } catch {
    throw notReady('its video file is missing');
  }
  const stat = await fs.promises.stat(filePath).catch(() => null);
  if (!stat?.isFile() || stat.size === 0) throw notReady('its video file is missing');
  return { contentId, filePath, size: stat.size };
}
