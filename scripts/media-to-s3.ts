// Copies an existing MEDIA_DIR into the bucket the S3_* settings name, and checks every object
// (src/media/storage/copy-to-bucket.ts; docs/operations.md "Moving media to an object store").
// Run with the node's environment, MEDIA_STORAGE=s3 included: `npx tsx scripts/media-to-s3.ts`.
// Exits 1 when any object does not match its file.
import { loadConfig } from '../src/config.js';
import { copyMediaDirToBucket } from '../src/media/storage/copy-to-bucket.js';
import { createMediaStore } from '../src/media/storage/create-store.js';
import { S3MediaStore } from '../src/media/storage/s3-store.js';

const config = loadConfig();
const store = createMediaStore(config);
if (!(store instanceof S3MediaStore)) {
  console.error('set MEDIA_STORAGE=s3 and the S3_* settings of the bucket to copy MEDIA_DIR into');
  process.exit(2);
}
await store.check();
console.log(`copying ${config.mediaDir} into ${store.name}`);
const report = await copyMediaDirToBucket(config.mediaDir, store, (line) => console.log(line));
console.log(JSON.stringify(report));
if (report.skippedResumable > 0) console.log(`${report.skippedResumable} unfinished resumable uploads were not copied (their clients start them again)`);
process.exit(report.mismatched.length ? 1 : 0);
