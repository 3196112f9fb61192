// What each upload kind accepts, decided from the file's own bytes (the client's file name and
// declared type are never trusted). GIF and BMP are refused as images: the platform shows
// photos of properties, the players and the edit rule (SPEC §4.3: jpg and png) expect still
// photos, and an animated GIF would pose as a video. WebP is kept (SPEC §8 lists it for avatars).
import { fileTypeFromFile } from 'file-type';
import type { Config } from '../config.js';

export type UploadKind = 'image' | 'video' | 'document';
export const UPLOAD_KINDS = ['image', 'video', 'document'] as const;

export interface DetectedType {
  ext: string;
  mime: string;
}

const ACCEPTED: Record<UploadKind, Record<string, string>> = {
  // mime → extension we store under
  image: { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' },
  video: { 'video/mp4': 'mp4', 'video/quicktime': 'mov', 'video/webm': 'webm', 'video/x-matroska': 'mkv', 'video/matroska': 'mkv' },
  document: { 'application/pdf': 'pdf' },
};

/** The extensions a video original may be stored under. */
export const VIDEO_EXTENSIONS: readonly string[] = [...new Set(Object.values(ACCEPTED.video))];

/** The file's type from its leading bytes, or null when no known signature matches. */
export async function detectType(filePath: string): Promise<DetectedType | null> {
  const found = await fileTypeFromFile(filePath);
  return found ? { ext: found.ext, mime: found.mime } : null;
}

/** The accepted type of `kind` the bytes show (with the extension we store it under), or null. */
export function acceptedAs(kind: UploadKind, detected: DetectedType | null): DetectedType | null {
  if (!detected) return null;
  // Some MP4 brands are reported as video/x-m4v or similar; they are MP4 containers.
  const mime = kind === 'video' && ['video/x-m4v', 'video/3gpp'].includes(detected.mime) ? 'video/mp4' : detected.mime;
  const ext = ACCEPTED[kind][mime];
  return ext ? { ext, mime } : null;
}

export function acceptedMimeTypes(kind: UploadKind): string[] {
  return Object.keys(ACCEPTED[kind]);
}

export function maxBytesFor(config: Config, kind: UploadKind): number {
  return kind === 'image' ? config.MAX_IMAGE_BYTES : kind === 'video' ? config.MAX_VIDEO_BYTES : config.MAX_DOCUMENT_BYTES;
}
