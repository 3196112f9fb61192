// The public surface of src/media/: what other domains and the doors use of it.
export { ProcessingAbortedError } from './ffmpeg.js';
export { UPLOAD_KINDS } from './file-kinds.js';
export { sanitiseImage } from './image-sanitiser.js';
export type { MediaRemoval } from './media-removal.js';
export { readOnlyLocker, uploadBusy } from './resumable-lock.js';
export { isStreamLimit, withChunkedBody } from './resumable-store.js';
export type { ResumableUploadRow } from './resumable-upload-repository.js';
export { isStorageUnavailable, storageUnavailable, withStorageErrors } from './storage-errors.js';
export { contentTypeOf } from './storage/content-types.js';
export { avatarDirRel, avatarRelPath, exportRelPath, isContentTombstone } from './storage/keys.js';
export type { MediaStore, StoreObserver, StoredObject } from '../shared/media-store.js';
export { isStoreUnavailable, storeUnreachable } from './storage/store-errors.js';
export { MAX_IMAGES_PER_REQUEST } from './upload-service.js';
export type { UploadedFileRepository } from './uploaded-file-repository.js';
export type { ClaimedJob } from './video-job-repository.js';
