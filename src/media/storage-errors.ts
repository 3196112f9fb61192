// Storage that is full or read-only (CONTRACT §19): an upload answers 507
// `media.error.storage_unavailable`, never a 500 with the system's message.
import { AppError } from '../shared/errors.js';

const UNAVAILABLE_STORAGE_CODES = new Set(['ENOSPC', 'EROFS', 'EDQUOT']);

/** True for a file-system error that says the storage cannot take the bytes now. */
export function isStorageUnavailable(error: unknown): boolean {
  return UNAVAILABLE_STORAGE_CODES.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}

export const storageUnavailable = () =>
  new AppError(507, 'media.error.storage_unavailable', 'The media storage cannot take the file now; try again later');
