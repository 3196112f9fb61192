// The two upload forms of SPEC §4.4. Every file is checked by its bytes (never by the client's
// name or declared type), measured, and only then moved under MEDIA_DIR. Images are not moved:
// what is stored is their re-encoded copy (image-sanitiser.ts: pixel limit, metadata stripped).
import type { AppContext } from '../context.js';
import type { Caller } from '../shared/caller.js';
import { AppError, badRequest, forbidden } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import { mediaUrl } from '../shared/media-url.js';
import { z } from 'zod';
import { UPLOAD_KINDS, VIDEO_EXTENSIONS, acceptedAs, acceptedMimeTypes, detectType, maxBytesFor, type DetectedType, type UploadKind } from './file-kinds.js';
import { mediaTools } from './ffmpeg.js';
import { VideoLimitError, checkVideoLimits, probeVideo, videoLimits } from './probe.js';
import type { ContentRepository } from '../content/index.js';
import { contentNotFound, findManageableContent } from '../content/index.js';
import type { NewUploadedFile, UploadedFileRepository } from './uploaded-file-repository.js';
import type { VideoJobRepository } from './video-job-repository.js';
import type { WakeUp } from '../shared/wake-up.js';
import { contentImageRelPath, originalRelPath, uploadRelPath } from './storage/keys.js';
import { sanitiseImage, type CleanImage } from './image-sanitiser.js';
import { withStorageErrors } from './storage-errors.js';

/** A file the HTTP layer streamed to a temporary path. */
export interface IncomingFile {
  filename: string;
  path: string;
  size: number;
}

/** One upload request of SPEC §4.4: its query, its files (with their form field) and its other fields. */
export interface UploadForm {
  /** The content item of the attached form. */
  contentId?: string;
  /** Attached form: present for extra images, absent for the main video. */
  topicKey?: string;
  files: (IncomingFile & { field: string })[];
  fields: Record<string, string | undefined>;
}

/** Files for a content item (the attached form), from either door. */
export interface AttachedFiles {
  contentId: string;
  /** Present for extra images, absent for the main video. */
  topicKey?: string;
  files: IncomingFile[];
  /** How the client names the file(s), for error details: the form field, or `file` for a resumable upload. */
  field: string;
}

/** What an attached upload stored. */
export type AttachOutcome = { form: 'content-images'; images: { url: string }[] } | { form: 'main-video' };

/** What an upload stored, by form. */
export type UploadOutcome = AttachOutcome | { form: 'general'; file: UploadedFileResult };

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
const MAX_IMAGES_PER_CONTENT = 20;

const tooLarge = (field: string, limit: number) =>
  new AppError(413, 'file.error.too_large', `File exceeds ${limit} bytes`, { field, constraint: `at most ${limit} bytes` });

const invalidType = (field: string, kind: UploadKind) =>
  badRequest('file.error.invalid_type', `The file is not an accepted ${kind} (${acceptedMimeTypes(kind).join(', ')})`, {
    field,
    constraint: acceptedMimeTypes(kind).join(', '),
  });

function parseKind(value: string | undefined): UploadKind {
  const parsed = z.enum(UPLOAD_KINDS).safeParse(value);
  if (!parsed.success) {
    throw badRequest(value === undefined ? 'file.error.missing_type' : 'file.error.invalid_type', 'Field `type` must be image, video or document', {
      field: 'type',
      constraint: UPLOAD_KINDS.join(', '),
    });
  }
  return parsed.data;
}

function parseClientMetadata(value: string | undefined): Record<string, unknown> {
  if (value === undefined || value.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('file.error.invalid_metadata', 'Field `metadata` must be a JSON object', { field: 'metadata', constraint: 'JSON object' });
  }
  return parsed as Record<string, unknown>;
}

/** The client's file name, reduced to a plain name (it is shown, never used as a path). */
function displayName(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  return base.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255) || 'file';
}

export class UploadService {
  constructor(
    private readonly app: AppContext,
    private readonly uploadedFiles: UploadedFileRepository,
    private readonly contents: ContentRepository,
    private readonly videoJobs: VideoJobRepository,
    /** Poked when a video job is queued: this node's idle video workers take it at once (jobs/video-worker.ts). */
    private readonly videoWakeUp: Pick<WakeUp, 'poke'>,
  ) {}

  /**
   * Tells the two forms apart: with a content id, files attached to that item (field `files`):
   * extra images when a topic key is given, else the main video; without one, the general form
   * (one file in field `file`, its `type` and optional JSON `metadata`).
   */
  async upload(caller: Caller, form: UploadForm): Promise<UploadOutcome> {
    // A full or read-only storage answers 507 (the item is left as it was: nothing is recorded
    // before the bytes are in place).
    return withStorageErrors(() => this.uploadForm(caller, form));
  }

  private async uploadForm(caller: Caller, form: UploadForm): Promise<UploadOutcome> {
    const { files } = form;
    if (form.contentId !== undefined) {
      const attached = files.filter((f) => f.field === 'files');
      if (files.some((f) => f.field !== 'files')) {
        throw badRequest('request.error.unexpected_file', 'Files attached to a content item go in field `files`', {
          field: 'file',
          constraint: 'use field files',
        });
      }
      return this.attachFiles(caller, { contentId: form.contentId, topicKey: form.topicKey, files: attached, field: 'files' });
    }
    const kind = parseKind(form.fields.type);
    const metadata = parseClientMetadata(form.fields.metadata);
    const generalFiles = files.filter((f) => f.field === 'file');
    if (files.length > 1 || files.some((f) => f.field !== 'file')) {
      throw badRequest('file.error.too_many_files', 'The general form takes one file in field `file`', { field: 'file', constraint: 'exactly one file' });
    }
    return { form: 'general', file: await this.uploadFile(caller, generalFiles[0], kind, metadata) };
  }

  /**
   * The attached form (files for a content item): extra images when a topic key is given, else
   * the main video, which is stored and queued for processing. Both doors come here: the
   * multipart form and a completed resumable upload (resumable-uploads.ts).
   */
  attachToContent(caller: Caller, attach: AttachedFiles): Promise<AttachOutcome> {
    return withStorageErrors(() => this.attachFiles(caller, attach));
  }

  private async attachFiles(caller: Caller, attach: AttachedFiles): Promise<AttachOutcome> {
    const { contentId, topicKey, files, field } = attach;
    if (topicKey !== undefined) {
      return { form: 'content-images', images: await this.uploadContentImages(caller, contentId, files, field) };
    }
    await this.uploadMainVideo(caller, contentId, files, field);
    return { form: 'main-video' };
  }

  /** The content item `caller` may attach media to (400 for a malformed id, 404 unknown, 403 not theirs). */
  async manageableContent(caller: Caller, contentId: string): Promise<void> {
    await this.ownedContent(caller, contentId);
  }

  /**
   * The checks of the general form's video, by the file's bytes: its type (sniffed), then what
   * ffprobe finds inside it as an allowed container (a manifest posing as a video is unreadable),
   * its duration and resolution. The multipart main video leaves the last three to its
   * processing job; a resumable upload is answered by them when its last byte arrives (§24).
   */
  async verifyVideo(file: IncomingFile, field: string): Promise<void> {
    const type = await this.checkFile(file, field, 'video');
    await this.measure(file.path, 'video', type, field);
  }

  private async checkFile(file: IncomingFile, field: string, kind: UploadKind): Promise<DetectedType> {
    const limit = maxBytesFor(this.app.config, kind);
    if (file.size > limit) throw tooLarge(field, limit);
    if (file.size === 0) throw badRequest('file.error.empty_file', 'The file is empty', { field, constraint: 'not empty' });
    const accepted = acceptedAs(kind, await detectType(file.path));
    if (!accepted) throw invalidType(field, kind);
    return accepted;
  }

  private async measure(file: string, kind: UploadKind, type: DetectedType, field = 'file'): Promise<UploadedFileResult['metadata']> {
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
        throw badRequest(code, `The video is not accepted: ${err.message}`, { field, constraint: err.constraint });
      }
      throw badRequest('file.error.unreadable', `The ${kind} cannot be read`, { field, constraint: `a readable ${kind}` });
    }
    return { width: null, height: null, format: type.ext };
  }

  /** General form: one file of a declared kind, kept for the caller. */
  private async uploadFile(
    caller: Caller,
    file: IncomingFile | undefined,
    kind: UploadKind,
    clientMetadata: Record<string, unknown>,
  ): Promise<UploadedFileResult> {
    if (!file) throw badRequest('file.error.missing_file', 'A file is required in field `file`', { field: 'file', constraint: 'required' });
    const type = await this.checkFile(file, 'file', kind);
    if (kind === 'image') return this.uploadImageFile(caller, file, clientMetadata);
    const metadata = await this.measure(file.path, kind, type);
    const id = newId();
    const rel = uploadRelPath(caller.userId, id, type.ext);
    return this.keepUpload(
      { id, userId: caller.userId, kind, path: rel, mimeType: type.mime, size: file.size, originalName: displayName(file.filename), metadata, clientMetadata },
      () => this.app.media.putFile(rel, file.path, { move: true }),
    );
  }

  /** Stores a general-form file in the media store and records it; the stored file goes again when the record fails. */
  private async keepUpload(upload: NewUploadedFile, store: () => Promise<unknown>): Promise<UploadedFileResult> {
    await store();
    try {
      await this.uploadedFiles.insertCompleted(upload);
    } catch (err) {
      await this.app.media.delete(upload.path).catch(() => undefined);
      throw err;
    }
    return {
      file_id: upload.id,
      url: mediaUrl(this.app.config, upload.path),
      type: upload.kind,
      size: upload.size,
      processing_status: 'completed',
      metadata: upload.metadata,
    };
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
    return this.keepUpload(
      {
        id,
        userId: caller.userId,
        kind: 'image',
        path: rel,
        mimeType: image.mime,
        size: image.data.length,
        originalName: displayName(file.filename),
        metadata,
        clientMetadata,
      },
      () => this.app.media.putBuffer(rel, image.data),
    );
  }

  private async ownedContent(caller: Caller, contentId: string) {
    if (!isUuid(contentId)) throw badRequest('file.error.invalid_content_id', 'id must be a content id (uuid)', { field: 'id', constraint: 'uuid' });
    return findManageableContent(this.contents, caller, contentId, {
      notAllowed: () => forbidden('file.error.not_owner', 'Only the owner of the content may upload its media'),
    });
  }

  /** Attached form, main video: stored as the item's original and queued for processing. */
  private async uploadMainVideo(caller: Caller, contentId: string, files: IncomingFile[], field: string): Promise<void> {
    await this.ownedContent(caller, contentId);
    if (files.length === 0) throw badRequest('file.error.missing_file', `A video is required in field \`${field}\``, { field, constraint: 'required' });
    if (files.length > 1) throw badRequest('file.error.too_many_files', 'Send one main video', { field, constraint: 'exactly one file' });
    const file = files[0];
    const type = await this.checkFile(file, field, 'video');
    const rel = originalRelPath(contentId, type.ext);
    await this.intoContentDirectory(contentId, () => this.app.media.putFile(rel, file.path, { move: true }));
    // A replaced original of another container type must not linger (removed only once the new
    // one is in place: a storage that refuses the new one leaves the item as it was).
    for (const ext of VIDEO_EXTENSIONS) {
      if (ext !== type.ext) await this.app.media.delete(originalRelPath(contentId, ext));
    }
    const uploaderId = await this.app.database.transaction(async (tx) => {
      const contents = this.contents.in(tx);
      const jobs = this.videoJobs.in(tx);
      const locked = await contents.findMediaForUpdate(contentId);
      if (!locked) throw contentNotFound();
      await contents.markVideoProcessing(contentId, rel, displayName(file.filename), file.size);
      // The new upload supersedes the file a live job of the item was working on.
      await jobs.failLiveJobs(contentId, 'superseded by a new upload');
      await jobs.insert(newId(), contentId, rel);
      return locked.uploader_id;
    });
    await this.app.events.publishAndWait('content.changed', { contentId, uploaderId });
    this.videoWakeUp.poke();
  }

  /**
   * Writes into an item's media. An item deleted since its ownership was checked has a tombstone
   * where its media was (MediaStore.withdrawContent), so the write fails: that
   * is the item being gone (404), not a fault of the server.
   */
  private async intoContentDirectory<T>(contentId: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR' || code === 'EEXIST') {
        throw contentNotFound();
      }
      throw err;
    }
  }

  /** Attached form, additional media: images appended to the item. Returns their URLs. */
  private async uploadContentImages(caller: Caller, contentId: string, files: IncomingFile[], field: string): Promise<{ url: string }[]> {
    const content = await this.ownedContent(caller, contentId);
    if (files.length === 0)
      throw badRequest('file.error.missing_file', `At least one image is required in field \`${field}\``, { field, constraint: 'required' });
    if (files.length > MAX_IMAGES_PER_REQUEST) {
      throw badRequest('file.error.too_many_files', `At most ${MAX_IMAGES_PER_REQUEST} images per request`, {
        field,
        constraint: `at most ${MAX_IMAGES_PER_REQUEST} files`,
      });
    }
    const tooMany = (held: number) =>
      badRequest('file.error.too_many_images', `A content item holds at most ${MAX_IMAGES_PER_CONTENT} images (it has ${held})`, {
        field,
        constraint: `at most ${MAX_IMAGES_PER_CONTENT} images per content`,
      });
    if ((content.images?.length ?? 0) + files.length > MAX_IMAGES_PER_CONTENT) throw tooMany(content.images?.length ?? 0);
    for (const file of files) await this.checkFile(file, field, 'image');

    // One at a time, so at most one decoded image is held; a refused one removes those stored
    // before it (the item is left unchanged).
    const images: { id: string; path: string; name: string }[] = [];
    try {
      for (const file of files) {
        const image = await this.sanitise(file, field);
        const id = newId();
        const rel = contentImageRelPath(contentId, id, image.ext);
        await this.intoContentDirectory(contentId, () => this.app.media.putBuffer(rel, image.data));
        images.push({ id, path: rel, name: displayName(file.filename) });
      }
      const uploaderId = await this.app.database.transaction(async (tx) => {
        const contents = this.contents.in(tx);
        const locked = await contents.findMediaForUpdate(contentId);
        if (!locked) throw contentNotFound();
        const held = locked.images?.length ?? 0;
        if (held + images.length > MAX_IMAGES_PER_CONTENT) throw tooMany(held);
        await contents.appendImages(contentId, images);
        return locked.uploader_id;
      });
      await this.app.events.publishAndWait('content.changed', { contentId, uploaderId });
    } catch (err) {
      for (const image of images) await this.app.media.delete(image.path).catch(() => undefined);
      throw err;
    }
    return images.map((image) => ({ url: mediaUrl(this.app.config, image.path) }));
  }
}
