// Moving an existing MEDIA_DIR into a bucket (CONTRACT §27; docs/operations.md): every stored file
// is put under the same key and then checked against the bucket (size, and the S3 ETag: the MD5
// of a single-part object, or of its parts' MD5s for a multipart one, computed here the way the
// store uploads). Files already in the bucket with the same size and ETag are left as they are,
// so the copy can be run again (after an interruption, or once more just before the switch to
// catch what was uploaded meanwhile). Work files, half-written files and tombstones are not
// media; unfinished resumable uploads (.resumable) cannot move (the bucket keeps those as
// multipart uploads) and are reported.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isContentTombstone } from './keys.js';
import { PART_SIZE, type S3MediaStore } from './s3-store.js';

export interface CopyReport {
  copied: number;
  alreadyThere: number;
  /** Keys whose object in the bucket does not match the file after the copy. */
  mismatched: string[];
  /** Unfinished resumable uploads left behind (clients start them again). */
  skippedResumable: number;
  bytes: number;
}

/** The media keys under a directory: every file but work files, half-written files and tombstones. */
export async function mediaKeysIn(root: string): Promise<string[]> {
  const entries = await fs.promises.readdir(root, { recursive: true, withFileTypes: true });
  const keys: string[] = [];
  for (const e of entries) {
    if (!e.isFile()) continue;
    const key = path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/');
    const segments = key.split('/');
    if (isContentTombstone(segments)) continue;
    // Hidden names are work (.work-, .partial-, .removed-) except the exports' directory.
    if (segments.some((s, i) => s.startsWith('.') && !(i === 0 && s === '.exports'))) continue;
    keys.push(key);
  }
  return keys.sort();
}

/** The ETag S3 gives a file uploaded as the store uploads it (one part below PART_SIZE, else parts of PART_SIZE). */
export async function expectedEtag(file: string): Promise<string> {
  const parts: Buffer[] = [];
  let current = createHash('md5');
  let inPart = 0;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    let buf = chunk as Buffer;
    while (buf.length) {
      const take = Math.min(buf.length, PART_SIZE - inPart);
      current.update(buf.subarray(0, take));
      inPart += take;
      buf = buf.subarray(take);
      if (inPart === PART_SIZE) {
        parts.push(current.digest());
        current = createHash('md5');
        inPart = 0;
      }
    }
  }
  if (inPart > 0 || parts.length === 0) parts.push(current.digest());
  const { size } = await fs.promises.stat(file);
  if (size < PART_SIZE) return `"${parts[0].toString('hex')}"`;
  return `"${createHash('md5').update(Buffer.concat(parts)).digest('hex')}-${parts.length}"`;
}

export async function copyMediaDirToBucket(root: string, store: S3MediaStore, log: (line: string) => void = () => undefined): Promise<CopyReport> {
  const report: CopyReport = { copied: 0, alreadyThere: 0, mismatched: [], skippedResumable: 0, bytes: 0 };
  const resumable = path.join(root, '.resumable');
  report.skippedResumable = (await fs.promises.readdir(resumable).catch(() => [] as string[])).length;
  for (const key of await mediaKeysIn(root)) {
    const file = path.join(root, ...key.split('/'));
    const { size } = await fs.promises.stat(file);
    const etag = await expectedEtag(file);
    const before = await store.stat(key);
    if (before && before.size === size && before.etag === etag) {
      report.alreadyThere++;
      continue;
    }
    await store.putFile(key, file);
    const after = await store.stat(key);
    if (!after || after.size !== size || after.etag !== etag) {
      report.mismatched.push(key);
      log(`MISMATCH ${key}: ${size} bytes ${etag} here, ${after ? `${after.size} bytes ${after.etag}` : 'nothing'} in the bucket`);
      continue;
    }
    report.copied++;
    report.bytes += size;
    if (report.copied % 100 === 0) log(`${report.copied} copied…`);
  }
  return report;
}
