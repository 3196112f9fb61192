// A store that cannot be reached or refuses (CONTRACT §27), told apart from a missing object and
// from the client's mistakes: uploads answer 503 `media.error.storage_unavailable`, reads 503,
// processing waits and tries again.
import { AppError } from '../../shared/errors.js';

export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

export const isStoreUnavailable = (err: unknown): err is StoreUnavailableError => err instanceof StoreUnavailableError;

export const storeUnreachable = () =>
  new AppError(503, 'media.error.storage_unavailable', 'The media storage cannot be reached now; try again later', undefined, { 'Retry-After': '5' });
