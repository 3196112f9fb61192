// Storage that is full or read-only (CONTRACT §19): an upload answers 507
// `media.error.storage_unavailable`, never a 500 with the system's message; a processing job that
// runs out of space ends `failed` with `video.error.storage_unavailable` and a clean message.
import { AppError } from '../shared/errors.js';
import { isStoreUnavailable, storeUnreachable } from './storage/store-errors.js';

/** Out of space or quota, a read-only file system, or a directory the node may not write into. */
const UNAVAILABLE_STORAGE_CODES = new Set(['ENOSPC', 'EROFS', 'EDQUOT', 'EACCES']);

/** The same conditions as ffmpeg (or another tool) words them on stderr. */
const UNAVAILABLE_STORAGE_TEXT = /No space left on device|Read-only file system|Disk quota exceeded|Permission denied/i;

/** True for a file-system error that says the storage cannot take the bytes now. */
export function isStorageUnavailable(error: unknown): boolean {
  return UNAVAILABLE_STORAGE_CODES.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}

/** True also for an error whose message (a tool's output) says so: for processing failures. */
export function mentionsStorageUnavailable(error: unknown): boolean {
  return isStorageUnavailable(error) || UNAVAILABLE_STORAGE_TEXT.test(error instanceof Error ? error.message : String(error));
}

/** The first line of a tool's output that says the storage refused its bytes, if any. */
export function storageFailureLine(output: string): string | null {
  return output.split(/\r?\n|\r/).find((line) => UNAVAILABLE_STORAGE_TEXT.test(line)) ?? null;
}

export const storageUnavailable = () => new AppError(507, 'media.error.storage_unavailable', 'The media storage cannot take the file now; try again later');

/**
 * Runs a step that writes media; a storage that cannot take the bytes becomes the 507 above, an
 * object store that cannot be reached or refuses the 503 of CONTRACT §27.
 */
export async function withStorageErrors<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (isStoreUnavailable(err)) throw storeUnreachable();
    throw isStorageUnavailable(err) ? storageUnavailable() : err;
  }
}
