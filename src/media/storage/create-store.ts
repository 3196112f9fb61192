// The node's media store, by MEDIA_STORAGE (CONTRACT §27).
import type { Config } from '../../config.js';
import { LocalMediaStore } from './local-store.js';
import type { MediaStore, StoreObserver } from '../../shared/media-store.js';
import { S3MediaStore } from './s3-store.js';

export function createMediaStore(config: Config, observe?: StoreObserver): MediaStore {
  if (config.MEDIA_STORAGE === 'local') return new LocalMediaStore(config.mediaDir);
  return new S3MediaStore({
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    bucket: config.S3_BUCKET!,
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    scratchRoot: config.tmpDir,
    observe,
  });
}
