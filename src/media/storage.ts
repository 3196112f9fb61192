// Where media files go under MEDIA_DIR, and moving uploads there. Paths stored in the database are
// relative to MEDIA_DIR with forward slashes; mediaPath() turns them into absolute ones.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { mediaPath } from '../shared/media-url.js';

export const uploadRelPath = (userId: string, fileId: string, ext: string) => `uploads/${userId}/${fileId}.${ext}`;
export const contentDirRel = (contentId: string) => `content/${contentId}`;
export const originalRelPath = (contentId: string, ext: string) => `${contentDirRel(contentId)}/original.${ext}`;
export const contentImageRelPath = (contentId: string, imageId: string, ext: string) => `${contentDirRel(contentId)}/images/${imageId}.${ext}`;
export const hlsDirRel = (contentId: string) => `${contentDirRel(contentId)}/hls`;
export const thumbnailRelPath = (contentId: string, token: string) => `${contentDirRel(contentId)}/thumbnail-${token}.jpg`;
/** Work directory of one job: hidden (dot name), so never served while incomplete. */
export const workDirRel = (contentId: string, jobId: string) => `${contentDirRel(contentId)}/.work-${jobId}`;

/** Moves a file into MEDIA_DIR (rename, or copy + unlink across file systems). */
export async function moveIntoMedia(config: Config, from: string, relPath: string): Promise<string> {
  const to = mediaPath(config, relPath);
  await fs.promises.mkdir(path.dirname(to), { recursive: true });
  try {
    await fs.promises.rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await fs.promises.copyFile(from, to);
    await fs.promises.rm(from, { force: true });
  }
  return to;
}
