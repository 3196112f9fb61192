// Avatars: the uploaded file's type is read from its bytes (never from its name or declared
// type), then the image goes through the shared image path (image-sanitiser.ts: pixel
// limit checked from the header before decoding, BMP decoded off the event loop, metadata
// stripped), turned upright, shrunk to fit 512×512 and stored as WebP under
// avatars/<userId>/<uuid>.webp in the media store; the user's previous avatar file is removed.
import { fileTypeFromFile } from 'file-type';
import type { AppContext } from '../context.js';
import { AppError, badRequest } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { mediaUrl } from '../shared/media-url.js';
import { requireSameIdentity, type Caller, type UserRepository } from '../auth/index.js';
import { avatarRelPath } from './storage/keys.js';
import { sanitiseImage } from './image-sanitiser.js';
import { withStorageErrors } from './storage-errors.js';

const AVATAR_MAX_SIDE = 512;
const AVATAR_TYPES = ['image/jpeg', 'image/png', 'image/bmp', 'image/webp'] as const;

interface AvatarUpload {
  /** Temporary path of the uploaded file. */
  path: string;
  size: number;
}

const invalidType = () =>
  badRequest('file.error.invalid_type', 'The avatar must be a JPEG, PNG, BMP or WebP image', {
    field: 'avatar',
    constraint: 'jpeg, png, bmp or webp',
  });

const undecodable = () => badRequest('file.error.invalid_image', 'The avatar image could not be decoded', { field: 'avatar', constraint: 'a readable image' });

export class AvatarService {
  constructor(
    private readonly app: AppContext,
    private readonly users: UserRepository,
  ) {}

  /**
   * Stores the caller's new avatar and answers its URL. `claimed` is the identity the request
   * names (x-user-id, x-user-username), which must be the caller's own.
   */
  async setAvatar(caller: Caller, claimed: { userId: string; username: string }, upload: AvatarUpload | undefined): Promise<string> {
    requireSameIdentity(caller, claimed);
    if (!upload) throw badRequest('file.error.missing', 'The avatar file is required (multipart field avatar)', { field: 'avatar', constraint: 'required' });
    const userId = caller.userId;
    const max = this.app.config.MAX_IMAGE_BYTES;
    if (upload.size > max) {
      throw badRequest('file.error.too_large', `The avatar must be at most ${max} bytes`, { field: 'avatar', constraint: `at most ${max} bytes` });
    }
    if (upload.size === 0) throw invalidType();
    const detected = await fileTypeFromFile(upload.path);
    if (!detected || !(AVATAR_TYPES as readonly string[]).includes(detected.mime)) throw invalidType();

    // Decoding and encoding happen in memory (the result is at most 512×512): a failure there
    // is the client's file; a failure writing it is ours.
    const { data: webp } = await sanitiseImage(upload.path, {
      maxPixels: this.app.config.MAX_IMAGE_PIXELS,
      field: 'avatar',
      unreadable: undecodable,
      output: 'webp',
      fitInside: AVATAR_MAX_SIDE,
    });
    const relative = avatarRelPath(userId, newId());
    // A full or read-only storage answers 507 like every other upload (CONTRACT §19), an object
    // store that cannot be reached 503 (§27); the store writes whole or not at all.
    await withStorageErrors(() => this.app.media.putBuffer(relative, webp)).catch((err: unknown) => {
      if (err instanceof AppError) throw err;
      this.app.log.error({ err }, 'avatar write failed');
      throw new AppError(500, 'file.error.upload_failed', 'The avatar could not be stored');
    });

    let previous: string | null;
    try {
      const row = await this.users.replacePicture(userId, relative);
      if (!row) throw new AppError(404, 'user.error.not_found', 'User not found');
      previous = row.previous;
    } catch (err) {
      await this.app.media.delete(relative).catch(() => undefined);
      throw err;
    }
    await this.app.events.publishAndWait('user.changed', { userId });
    if (previous && previous !== relative) await this.removeStoredAvatar(previous);
    return mediaUrl(this.app.config, relative);
  }

  /** Deletes a stored avatar file (only files under avatars/; failures are logged, not raised). */
  private async removeStoredAvatar(relative: string): Promise<void> {
    if (!relative.startsWith('avatars/')) return;
    try {
      await this.app.media.delete(relative);
    } catch (err) {
      this.app.log.warn({ err }, 'could not remove the previous avatar');
    }
  }
}
