// Avatars: the uploaded file's type is read from its bytes (never from its name or declared
// type), the image is decoded, turned upright, shrunk to fit 512×512 and stored as WebP under
// MEDIA_DIR/avatars/<userId>/<uuid>.webp; the user's previous avatar file is removed.
// sharp's prebuilt libvips has no BMP loader, so BMP is decoded by `bmp-ts` into raw pixels.
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp, { type Sharp } from 'sharp';
import * as bmp from 'bmp-ts';
import { fileTypeFromFile } from 'file-type';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { AppError, badRequest } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { mediaPath, mediaUrl } from '../shared/media-url.js';

export const AVATAR_MAX_SIDE = 512;
export const AVATAR_TYPES = ['image/jpeg', 'image/png', 'image/bmp', 'image/webp'] as const;
/** Decoding refuses images above this many pixels (a small file can claim a huge canvas). */
const MAX_INPUT_PIXELS = 40_000_000;

export interface AvatarUpload {
  /** Temporary path of the uploaded file. */
  path: string;
  size: number;
}

const invalidType = () =>
  badRequest('file.error.invalid_type', 'The avatar must be a JPEG, PNG, BMP or WebP image', {
    field: 'avatar',
    constraint: 'jpeg, png, bmp or webp',
  });

const undecodable = () =>
  badRequest('file.error.invalid_image', 'The avatar image could not be decoded', { field: 'avatar', constraint: 'a readable image' });

export class AvatarService {
  constructor(private readonly app: AppContext) {}

  /** Stores the new avatar and answers its URL. */
  async setAvatar(userId: string, upload: AvatarUpload): Promise<string> {
    const max = this.app.config.MAX_IMAGE_BYTES;
    if (upload.size > max) {
      throw badRequest('file.error.too_large', `The avatar must be at most ${max} bytes`, { field: 'avatar', constraint: `at most ${max} bytes` });
    }
    if (upload.size === 0) throw invalidType();
    const detected = await fileTypeFromFile(upload.path);
    if (!detected || !(AVATAR_TYPES as readonly string[]).includes(detected.mime)) throw invalidType();

    // Decoding and encoding happen in memory (the result is at most 512×512): a failure there
    // is the client's file; a failure writing it is ours.
    let webp: Buffer;
    try {
      const input = detected.mime === 'image/bmp' ? await this.bmpToSharp(upload.path) : sharp(upload.path, { limitInputPixels: MAX_INPUT_PIXELS });
      webp = await input
        .rotate()
        .resize(AVATAR_MAX_SIDE, AVATAR_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
        .webp({ quality: 85 })
        .toBuffer();
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw undecodable();
    }
    const relative = path.posix.join('avatars', userId, `${newId()}.webp`);
    const target = mediaPath(this.app.config, relative);
    try {
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, webp);
    } catch (err) {
      this.app.log.error({ err }, 'avatar write failed');
      await fs.rm(target, { force: true }).catch(() => undefined);
      throw new AppError(500, 'file.error.upload_failed', 'The avatar could not be stored');
    }

    let previous: string | null = null;
    try {
      // FOR UPDATE: a concurrent upload waits and then sees this one's picture as its previous.
      const [row] = await this.app.database.rows<{ previous: string | null }>(sql`
        update users set picture = ${relative}, updated_at = now()
        from (select picture from users where id = ${userId} for update) as old
        where users.id = ${userId}
        returning old.picture as previous`);
      if (!row) throw new AppError(404, 'user.error.not_found', 'User not found');
      previous = row.previous;
    } catch (err) {
      await fs.rm(target, { force: true });
      throw err;
    }
    if (previous && previous !== relative) await this.removeStoredAvatar(previous);
    return mediaUrl(this.app.config, relative);
  }

  /** Deletes a stored avatar file (only files under avatars/; failures are logged, not raised). */
  private async removeStoredAvatar(relative: string): Promise<void> {
    if (!relative.startsWith('avatars/')) return;
    try {
      await fs.rm(mediaPath(this.app.config, relative), { force: true });
    } catch (err) {
      this.app.log.warn({ err }, 'could not remove the previous avatar');
    }
  }

  /** BMP → raw RGB(A) pixels → sharp. */
  private async bmpToSharp(file: string): Promise<Sharp> {
    const bytes = await fs.readFile(file);
    if (bytes.length < 26) throw undecodable();
    const width = Math.abs(bytes.readInt32LE(18));
    const height = Math.abs(bytes.readInt32LE(22));
    if (!width || !height || width * height > MAX_INPUT_PIXELS) throw undecodable();
    let decoded: ReturnType<typeof bmp.decode>;
    try {
      // Without toRGBA every bit depth comes out in one layout: A, B, G, R per pixel.
      decoded = bmp.decode(bytes);
    } catch {
      throw undecodable();
    }
    const abgr = decoded.data;
    // Only 16/32-bit images can carry alpha, and an all-zero alpha byte means "unused" (the
    // common convention), not "fully transparent"; elsewhere the decoder leaves A at 0.
    let hasAlpha = false;
    if (decoded.bitPP === 16 || decoded.bitPP === 32) {
      for (let i = 0; i < abgr.length && !hasAlpha; i += 4) hasAlpha = abgr[i] !== 0;
    }
    const channels = hasAlpha ? 4 : 3;
    const pixels = Buffer.alloc(decoded.width * decoded.height * channels);
    for (let i = 0, o = 0; i < abgr.length; i += 4, o += channels) {
      pixels[o] = abgr[i + 3];
      pixels[o + 1] = abgr[i + 2];
      pixels[o + 2] = abgr[i + 1];
      if (hasAlpha) pixels[o + 3] = abgr[i];
    }
    return sharp(pixels, { raw: { width: decoded.width, height: decoded.height, channels } });
  }
}
