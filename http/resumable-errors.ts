// tus's refusals as the error envelope of SPEC §7: tus answers in plain text with its own
// statuses; the service answers every error with a code clients can switch on. tus's errors reach
// `onResponseError` as its ERRORS constants (matched by identity); a few (version and header
// checks) are written by tus directly and recognised by their text.
import { ERRORS, TUS_RESUMABLE, TUS_VERSION } from '@tus/utils';
import { isStorageUnavailable, storageUnavailable } from '../src/media/index.js';
import { uploadBusy } from '../src/media/index.js';
import { isStreamLimit } from '../src/media/index.js';
import { AppError, conflict } from '../src/shared/errors.js';
import { toAppError } from './envelope.js';

type TusFailure = { status_code: number; body: string };

/** tus's own refusals as §7 errors, by identity. */
const TUS_ERRORS = new Map<TusFailure, () => AppError>([
  [
    ERRORS.MISSING_OFFSET,
    () => new AppError(400, 'upload.error.missing_offset', 'Upload-Offset is required', { field: 'Upload-Offset', constraint: 'required' }),
  ],
  [ERRORS.INVALID_CONTENT_TYPE, () => unsupportedType()],
  [
    ERRORS.INVALID_OFFSET,
    () =>
      conflict('upload.error.offset_mismatch', 'Upload-Offset is not the offset of the upload; ask for it with HEAD', {
        field: 'Upload-Offset',
        constraint: 'the current offset',
      }),
  ],
  [ERRORS.FILE_NOT_FOUND, () => uploadGone()],
  [ERRORS.FILE_NO_LONGER_EXISTS, () => uploadGone()],
  [ERRORS.ERR_SIZE_EXCEEDED, () => lengthExceeded()],
  [
    ERRORS.ERR_MAX_SIZE_EXCEEDED,
    () =>
      new AppError(413, 'file.error.too_large', 'The upload is larger than the service accepts', {
        field: 'Upload-Length',
        constraint: 'at most Tus-Max-Size bytes',
      }),
  ],
  [ERRORS.INVALID_LENGTH, () => lengthRequired('Upload-Length')],
  [ERRORS.UNSUPPORTED_CREATION_DEFER_LENGTH_EXTENSION, () => lengthRequired('Upload-Defer-Length')],
  [
    ERRORS.INVALID_METADATA,
    () => new AppError(400, 'upload.error.invalid_metadata', 'Upload-Metadata is malformed', { field: 'Upload-Metadata', constraint: 'key base64,key base64' }),
  ],
  [
    ERRORS.UNSUPPORTED_CONCATENATION_EXTENSION,
    () =>
      new AppError(400, 'upload.error.concatenation_unsupported', 'Parallel (concatenated) uploads are not offered', {
        field: 'Upload-Concat',
        constraint: 'absent',
      }),
  ],
  [ERRORS.ABORTED, () => new AppError(400, 'request.error.aborted', 'The request was stopped')],
  [ERRORS.INVALID_TERMINATION, () => new AppError(409, 'upload.error.completed', 'The upload is complete')],
  [ERRORS.ERR_LOCK_TIMEOUT, () => uploadBusy()],
  [
    ERRORS.UNSUPPORTED_EXPIRATION_EXTENSION,
    () => new AppError(400, 'upload.error.invalid_header', 'Expiration is set by the service', { field: 'Upload-Expires', constraint: 'absent' }),
  ],
]);

const lengthExceeded = () =>
  new AppError(413, 'upload.error.length_exceeded', 'The body goes past the declared Upload-Length', {
    field: 'body',
    constraint: 'at most Upload-Length minus Upload-Offset bytes',
  });

/** A refusal of tus's this map does not know (a newer version's): its status, in the envelope. */
function otherTusRefusal(err: unknown): AppError | null {
  const failure = err as Partial<TusFailure> | null;
  if (typeof failure?.status_code !== 'number' || typeof failure.body !== 'string') return null;
  if (failure.status_code < 400 || failure.status_code >= 500) return null;
  return new AppError(failure.status_code, 'upload.error.refused', failure.body.trim() || 'The upload request was refused');
}

const uploadGone = () => new AppError(404, 'upload.error.not_found', 'No such upload');
const unsupportedType = () =>
  new AppError(415, 'request.error.unsupported_media_type', 'Content-Type must be application/offset+octet-stream', {
    field: 'content-type',
    constraint: 'application/offset+octet-stream',
  });
const lengthRequired = (field: string) =>
  new AppError(400, 'upload.error.length_required', 'Declare the upload size (Upload-Length) at creation', {
    field,
    constraint: 'Upload-Length, a whole number of bytes',
  });

export const invalidHeader = (name: string) =>
  new AppError(400, 'upload.error.invalid_header', `Invalid ${name} header`, { field: name, constraint: 'see the tus 1.0 protocol' });

/** Any error a tus request ended with, as the error its answer carries. */
export function tusError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isStorageUnavailable(err)) return storageUnavailable();
  const known = TUS_ERRORS.get(err as TusFailure);
  if (known) return known();
  if (isStreamLimit(err)) return lengthExceeded();
  return otherTusRefusal(err) ?? toAppError(err);
}

/** The few refusals tus writes without going through onResponseError: version and header checks. */
export function tusTextError(status: number, text: string): AppError {
  const invalid = /^Invalid (.+)$/.exec(text.trim())?.[1]?.split(' ') ?? [];
  // A missing or other version: 412 with the versions offered, as tus asks.
  if (status === 412 || invalid.includes('tus-resumable')) {
    return new AppError(
      412,
      'upload.error.unsupported_version',
      'Tus-Resumable: 1.0.0 is required',
      { field: 'Tus-Resumable', constraint: TUS_RESUMABLE },
      {
        'Tus-Version': TUS_VERSION.join(','),
      },
    );
  }
  if (invalid.includes('content-type')) return unsupportedType();
  if (invalid.length) return invalidHeader(invalid[0]);
  return status === 404 ? uploadGone() : new AppError(status, 'upload.error.refused', text.trim() || 'The upload request was refused');
}
