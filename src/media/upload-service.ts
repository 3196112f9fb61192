// The two upload forms of SPEC §4.4. Every file is checked by its bytes (never by the client's
// name or declared type), measured, and only then moved under MEDIA_DIR. Images are not moved:
// what is stored is their re-encoded copy (image-sanitiser.ts: pixel limit, metadata stripped).
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.js';
import type { Config } from '../config.js';
import type { Caller } from '../auth/caller.js';
import { can } from '../auth/caller.js';
import { AppError, badRequest, forbidden, notFound } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import { mediaPath, mediaUrl } from '../shared/media-url.js';
import { sql } from 'drizzle-orm';
import { acceptedAs, acceptedMimeTypes, detectType, maxBytesFor, type DetectedType, type UploadKind } from './file-kinds.js';
import { mediaTools } from './ffmpeg.js';
import { VideoLimitError, checkVideoLimits, probeVideo, videoLimits } from './probe.js';
import { ContentMedia, type StoredImage } from './content-media.js';
import { VideoJobs } from './video-jobs.js';
import { notifyVideoJobQueued } from './job-signal.js';
import { contentDirRel, contentImageRelPath, moveIntoMedia, originalRelPath, uploadRelPath } from './storage.js';
import { sanitiseImage, type CleanImage } from './image-sanitiser.js';

/** A file the HTTP layer streamed to a temporary path. */
export interface IncomingFile {
  filename: string;
  path: string;
  size: number;
}

export interface UploadedFileResult {
  file_id: string;
  url: string;
  type: UploadKind;
  size: number;
  processing_status: string;
  metadata: { width: number | null; height: number | null; format: string };
}

/** Images one request may add to a content item, and images an item may hold in all. */
export const MAX_IMAGES_PER_REQUEST = 10;
export const MAX_IMAGES_PER_CONTENT = 20;

const tooLarge = (field: string, limit: number) =>
  new AppError(413, 'file.error.too_large', `File exceeds ${limit} bytes`, { field, constraint: `at most ${limit} bytes` });

const invalidType = (field: string, kind: UploadKind) =>
  badRequest('file.error.invalid_type', `The file is not an accepted ${kind} (${acceptedMimeTypes(kind).join(', ')})`, {
    field,
    constraint: acceptedMimeTypes(kind).join(', '),
  });

/** The client's file name, reduced to a plain name (it is shown, never used as a path). */
function displayName(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  return base.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255) || 'file';
}

/** Writes bytes under MEDIA_DIR: first to a hidden name (never served), renamed once complete. */
async function writeIntoMedia(config: Config, relPath: string, data: Buffer): Promise<void> {
  const to = mediaPath(config, relPath);
  await fs.promises.mkdir(path.dirname(to), { recursive: true });
  const partial = path.join(path.dirname(to), `.partial-${newId()}`);
  try {
    await fs.promises.writeFile(partial, data);
    await fs.promises.rename(partial, to);
  } catch (err) {
    await fs.promises.rm(partial, { force: true });
    throw err;
  }
}

export class UploadService {
  private readonly contents: ContentMedia;
  private readonly jobs: VideoJobs;

  constructor(private readonly app: AppContext) {
    this.contents = new ContentMedia(app.database);
    this.jobs = new VideoJobs(app.database);
  }

  private async checkFile(file: IncomingFile, field: string, kind: UploadKind): Promise<DetectedType> {
    const limit = maxBytesFor(this.app.config, kind);
    if (file.size > limit) throw tooLarge(field, limit);
    if (file.size === 0) throw badRequest('file.error.empty_file', 'The file is empty', { field, constraint: 'not empty' });
    const accepted = acceptedAs(kind, await detectType(file.path));
    if (!accepted) throw invalidType(field, kind);
    return accepted;
  }

  private async measure(file: string, kind: UploadKind, type: DetectedType): Promise<UploadedFileResult['metadata']> {
    try {
      if (kind === 'video') {
        // Read only as an allowed container (probe.ts): a manifest posing as a video is unreadable here.
        const p = await probeVideo(mediaTools(this.app.config), file);
        checkVideoLimits(p, videoLimits(this.app.config));
        return { width: p.width, height: p.height, format: type.ext };
      }
    } catch (err) {
      if (err instanceof VideoLimitError) {
        const code = err.reason === 'too_long' ? 'file.error.video_too_long' : 'file.error.video_resolution_too_high';
        throw badRequest(code, `The video is not accepted: ${err.message}`, { field: 'file', constraint: err.constraint });
      }
      throw badRequest('file.error.unreadable', `The ${kind} cannot be read`, { field: 'file', constraint: `a readable ${kind}` });
    }
    return { width: null, height: null, format: type.ext };
  }

  /** General form: one file of a declared kind, kept for the caller. */
  async uploadFile(caller: Caller, file: IncomingFile | undefined, kind: UploadKind, clientMetadata: Record<string, unknown>): Promise<UploadedFileResult> {
    if (!file) throw badRequest('file.error.missing_file', 'A file is required in field `file`', { field: 'file', constraint: 'required' });
    const type = await this.checkFile(file, 'file', kind);
    if (kind === 'image') return this.uploadImageFile(caller, file, clientMetadata);
    const metadata = await this.measure(file.path, kind, type);
    const id = newId();
    const rel = uploadRelPath(caller.userId, id, type.ext);
    await moveIntoMedia(this.app.config, file.path, rel);
    try {
      await this.app.database.rows(sql`
        insert into uploaded_files (id, user_id, kind, path, mime_type, size, original_name, metadata, client_metadata, processing_status)
        values (${id}, ${caller.userId}, ${kind}, ${rel}, ${type.mime}, ${file.size}, ${displayName(file.filename)},
          ${JSON.stringify(metadata)}::jsonb, ${JSON.stringify(clientMetadata)}::jsonb, 'completed')`);
    } catch (err) {
      await fs.promises.rm(mediaPath(this.app.config, rel), { force: true });
      throw err;
    }
    return { file_id: id, url: mediaUrl(this.app.config, rel), type: kind, size: file.size, processing_status: 'completed', metadata };
  }

  /** The image path every stored image takes (pixel limit, re-encoded, metadata stripped). */
  private sanitise(file: IncomingFile, field: string): Promise<CleanImage> {
    return sanitiseImage(file.path, {
      maxPixels: this.app.config.MAX_IMAGE_PIXELS,
      field,
      unreadable: () => badRequest('file.error.unreadable', 'The image cannot be read', { field, constraint: 'a readable image' }),
    });
  }

  /** General form, image: the re-encoded image is what is stored, measured and reported. */
  private async uploadImageFile(caller: Caller, file: IncomingFile, clientMetadata: Record<string, unknown>): Promise<UploadedFileResult> {
    const image = await this.sanitise(file, 'file');
    const metadata = { width: image.width, height: image.height, format: image.format };
    const id = newId();
    const rel = uploadRelPath(caller.userId, id, image.ext);
    await writeIntoMedia(this.app.config, rel, image.data);
    try {
      await this.app.database.rows(sql`
        insert into uploaded_files (id, user_id, kind, path, mime_type, size, original_name, metadata, client_metadata, processing_status)
        values (${id}, ${caller.userId}, 'image', ${rel}, ${image.mime}, ${image.data.length}, ${displayName(file.filename)},
          ${JSON.stringify(metadata)}::jsonb, ${JSON.stringify(clientMetadata)}::jsonb, 'completed')`);
    } catch (err) {
      await fs.promises.rm(mediaPath(this.app.config, rel), { force: true });
      throw err;
    }
    return { file_id: id, url: mediaUrl(this.app.config, rel), type: 'image', size: image.data.length, processing_status: 'completed', metadata };
  }

  private async ownedContent(caller: Caller, contentId: string) {
    if (!isUuid(contentId)) throw badRequest('file.error.invalid_content_id', 'id must be a content id (uuid)', { field: 'id', constraint: 'uuid' });
    const content = await this.contents.find(contentId);
    if (!content) throw notFound('content.error.not_found', 'Content not found', { field: 'id', constraint: 'existing content' });
    if (content.uploader_id !== caller.userId && !can(caller, 'update:any_content')) {
      throw forbidden('file.error.not_owner', 'Only the owner of the content may upload its media');
    }
    return content;
  }

  /** Attached form, main video: stored as the item's original and queued for processing. */
  async uploadMainVideo(caller: Caller, contentId: string, files: IncomingFile[]): Promise<void> {
    await this.ownedContent(caller, contentId);
    if (files.length === 0) throw badRequest('file.error.missing_file', 'A video is required in field `files`', { field: 'files', constraint: 'required' });
    if (files.length > 1) throw badRequest('file.error.too_many_files', 'Send one main video', { field: 'files', constraint: 'exactly one file' });
    const file = files[0];
    const type = await this.checkFile(file, 'files', 'video');
    const rel = originalRelPath(contentId, type.ext);
    // A replaced original of another container type must not linger.
    const dir = mediaPath(this.app.config, contentDirRel(contentId));
    for (const old of await fs.promises.readdir(dir).catch(() => [] as string[])) {
      if (old.startsWith('original.') && old !== path.basename(rel)) await fs.promises.rm(path.join(dir, old), { force: true });
    }
    await this.intoContentDirectory(contentId, () => moveIntoMedia(this.app.config, file.path, rel));
    await this.app.db.transaction(async (tx) => {
      const locked = await this.contents.findForUpdate(tx, contentId);
      if (!locked) throw notFound('content.error.not_found', 'Content not found', { field: 'id', constraint: 'existing content' });
      await this.contents.markVideoProcessing(tx, contentId, rel, displayName(file.filename), file.size);
      await this.jobs.enqueue(tx, contentId, rel);
    });
    notifyVideoJobQueued(this.app);
  }

  /**
   * Writes into an item's media directory. An item deleted since its ownership was checked has a
   * tombstone file where the directory was (src/media/media-removal.ts), so the write fails: that
   * is the item being gone (404), not a fault of the server.
   */
  private async intoContentDirectory<T>(contentId: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR' || code === 'EEXIST') {
        throw notFound('content.error.not_found', 'Content not found', { field: 'id', constraint: 'existing content' });
      }
      throw err;
    }
  }

  /** Attached form, additional media: images appended to the item. Returns their URLs. */
  async uploadContentImages(caller: Caller, contentId: string, files: IncomingFile[]): Promise<{ url: string }[]> {
    const content = await this.ownedContent(caller, contentId);
    if (files.length === 0) throw badRequest('file.error.missing_file', 'At least one image is required in field `files`', { field: 'files', constraint: 'required' });
    if (files.length > MAX_IMAGES_PER_REQUEST) {
      throw badRequest('file.error.too_many_files', `At most ${MAX_IMAGES_PER_REQUEST} images per request`, { field: 'files', constraint: `at most ${MAX_IMAGES_PER_REQUEST} files` });
    }
    const tooMany = (held: number) =>
      badRequest('file.error.too_many_images', `A content item holds at most ${MAX_IMAGES_PER_CONTENT} images (it has ${held})`, {
        field: 'files',
        constraint: `at most ${MAX_IMAGES_PER_CONTENT} images per content`,
      });
    if ((content.images?.length ?? 0) + files.length > MAX_IMAGES_PER_CONTENT) throw tooMany(content.images?.length ?? 0);
    for (const file of files) await this.checkFile(file, 'files', 'image');

    // One at a time, so at most one decoded image is held; a refused one removes those stored
    // before it (the item is left unchanged).
    const images: StoredImage[] = [];
    try {
      for (const file of files) {
        const image = await this.sanitise(file, 'files');
        const id = newId();
        const rel = contentImageRelPath(contentId, id, image.ext);
        await this.intoContentDirectory(contentId, () => writeIntoMedia(this.app.config, rel, image.data));
        images.push({ id, path: rel, name: displayName(file.filename) });
      }
      await this.app.db.transaction(async (tx) => {
        const locked = await this.contents.findForUpdate(tx, contentId);
        if (!locked) throw notFound('content.error.not_found', 'Content not found', { field: 'id', constraint: 'existing content' });
        const held = locked.images?.length ?? 0;
        if (held + images.length > MAX_IMAGES_PER_CONTENT) throw tooMany(held);
        await this.contents.appendImages(tx, contentId, images);
      });
    } catch (err) {
      for (const image of images) await fs.promises.rm(mediaPath(this.app.config, image.path), { force: true });
      throw err;
    }
    return images.map((image) => ({ url: mediaUrl(this.app.config, image.path) }));
  }
}
