// Where media files go under MEDIA_DIR, and moving uploads there. Paths stored in the database are
// relative to MEDIA_DIR with forward slashes; mediaPath() turns them into absolute ones.
import { randomUUID } from 'node:crypto';
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

/**
 * Creates a directory under MEDIA_DIR. A recursive mkdir on a read-only file system answers
 * ENOENT; the storage's own state (EROFS, EACCES) is what is thrown then, so callers can tell a
 * storage that cannot be written from a missing path.
 */
export async function mkdirInMedia(config: Config, dir: string): Promise<void> {
  try {
    await fs.promises.mkdir(dir, { recursive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') await fs.promises.access(config.mediaDir, fs.constants.W_OK);
    throw err;
  }
}

/**
 * Moves a file into MEDIA_DIR (rename, or across file systems a copy to a hidden name renamed
 * once complete, so a storage that fills up mid-copy leaves no half file, nor a damaged earlier
 * one of the same name).
 */
export async function moveIntoMedia(config: Config, from: string, relPath: string): Promise<string> {
  const to = mediaPath(config, relPath);
  await mkdirInMedia(config, path.dirname(to));
  try {
    await fs.promises.rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await completeUnder(to, (partial) => fs.promises.copyFile(from, partial));
    await fs.promises.rm(from, { force: true });
  }
  return to;
}

/** Writes bytes under MEDIA_DIR: first to a hidden name (never served), renamed once complete. */
export async function writeIntoMedia(config: Config, relPath: string, data: Buffer): Promise<string> {
  const to = mediaPath(config, relPath);
  await mkdirInMedia(config, path.dirname(to));
  await completeUnder(to, (partial) => fs.promises.writeFile(partial, data));
  return to;
}

/**
 * Has `write` fill a hidden name beside `to` and renames it to `to` once it has succeeded; a
 * write that fails (a full or read-only storage) leaves neither a half file nor a changed `to`.
 */
async function completeUnder(to: string, write: (partial: string) => Promise<void>): Promise<void> {
  const partial = path.join(path.dirname(to), `.partial-${randomUUID()}`);
  try {
    await write(partial);
    await fs.promises.rename(partial, to);
  } catch (err) {
    await fs.promises.rm(partial, { force: true }).catch(() => undefined);
    throw err;
  }
}
