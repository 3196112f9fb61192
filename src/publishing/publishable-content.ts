// Which content a user may publish: their own, not deleted, completed, with its original video
// object present in the media store (CONTRACT: contents.video.original_path).
import type { Readable } from 'node:stream';
import type { MediaStore } from '../media/index.js';
import type { ContentRepository } from '../content/index.js';
import { findManageableContent } from '../content/index.js';
import { conflict, forbidden } from '../shared/errors.js';

export interface PublishableVideo {
  contentId: string;
  size: number;
  /** The original's bytes (a range of them, offsets inclusive), read from the media store. */
  read: (range?: { start: number; end: number }) => Promise<Readable>;
}

export async function findPublishableVideo(contents: ContentRepository, media: MediaStore, contentId: string, userId: string): Promise<PublishableVideo> {
  const row = await findManageableContent(contents, userId, contentId, {
    notAllowed: () => forbidden('publishing.error.not_owner', 'Only the uploader can publish this content'),
  });
  const notReady = (why: string) =>
    conflict('publishing.error.content_not_ready', `The content cannot be published yet: ${why}`, {
      field: 'id',
      constraint: 'completed content with a video',
    });
  if (row.status !== 'completed') throw notReady(`its status is ${row.status}`);
  const originalPath = row.video?.original_path;
  if (!originalPath) throw notReady('it has no video file');
  const stat = await media.stat(originalPath);
  if (!stat || stat.size === 0) throw notReady('its video file is missing');
  return { contentId, size: stat.size, read: (range) => media.read(originalPath, range) };
}
