// The media store on a local (or shared, mounted) directory: MEDIA_DIR. A file appears whole or
// not at all: it is written to a hidden name (never served) and renamed once complete.
//
// Withdrawing a deleted item's media (withdrawContent):
// 1. renames content/<id> to a hidden name (`.removed-…`), which takes every file out of service
//    in one step, for every node sharing MEDIA_DIR;
// 2. leaves an empty *file* at content/<id> as a tombstone: a writer still holding the item (an
//    upload that passed its checks before the delete, a video job finishing) cannot create
//    content/<id>/… again, because a file is in the way of the directory;
// 3. deletes the hidden tree.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { randomToken } from '../../shared/ids.js';
import { contentDirRel } from './keys.js';
import type { ByteRange, LocalCopy, MediaStore, PutOptions, StoredObject } from '../../shared/media-store.js';

/** Tries at replacing the directory with the tombstone while a racing writer re-creates it. */
const TOMBSTONE_TRIES = 5;

const etagOf = (stat: fs.Stats) => `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;

export class LocalMediaStore implements MediaStore {
  readonly kind = 'local' as const;
  readonly name: string;

  constructor(private readonly root: string) {
    this.name = `local:${root}`;
  }

  /** The absolute path of a key (refuses keys that would leave the root). */
  pathOf(key: string): string {
    const full = path.resolve(this.root, key);
    if (!full.startsWith(this.root + path.sep)) throw new Error('media key escapes MEDIA_DIR');
    return full;
  }

  async putFile(key: string, file: string, options: PutOptions = {}): Promise<void> {
    const to = this.pathOf(key);
    await this.mkdir(path.dirname(to));
    if (options.move) {
      try {
        await fs.promises.rename(file, to);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      }
    }
    await this.throughPartial(to, (partial) => fs.promises.copyFile(file, partial));
    if (options.move) await fs.promises.rm(file, { force: true });
  }

  async putBuffer(key: string, data: Buffer): Promise<void> {
    const to = this.pathOf(key);
    await this.mkdir(path.dirname(to));
    await this.throughPartial(to, (partial) => fs.promises.writeFile(partial, data));
  }

  async stat(key: string): Promise<StoredObject | null> {
    const real = await this.realFile(key);
    if (!real) return null;
    return { size: real.stat.size, etag: etagOf(real.stat), lastModified: real.stat.mtime };
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const real = await this.realFile(key);
    if (!real) throw Object.assign(new Error(`no media object ${key}`), { code: 'ENOENT' });
    return fs.createReadStream(real.path, { start: range?.start, end: range?.end, highWaterMark: 256 * 1024 });
  }

  async localCopy(key: string): Promise<LocalCopy> {
    return { path: this.pathOf(key), release: async () => undefined };
  }

  scratchFor(prefix: string): string {
    return this.pathOf(prefix);
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await fs.promises.rm(this.pathOf(prefix), { recursive: true, force: true });
  }

  async list(prefix: string): Promise<string[]> {
    const dir = this.pathOf(prefix);
    const entries = await fs.promises.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [] as fs.Dirent[]);
    return entries
      .filter((e) => e.isFile())
      .map((e) => path.relative(this.root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
      .filter((key) => !key.split('/').some((segment) => segment.startsWith('.'))); // work and partial files are no objects
  }

  async withdrawContent(contentId: string): Promise<void> {
    const dir = this.pathOf(contentDirRel(contentId));
    const parent = path.dirname(dir);
    await fs.promises.mkdir(parent, { recursive: true });
    const hidden: string[] = [];
    let tombstoned = false;
    for (let i = 0; i < TOMBSTONE_TRIES && !tombstoned; i++) {
      const stat = await fs.promises.lstat(dir).catch(() => null);
      if (stat?.isFile()) {
        tombstoned = true;
        break;
      }
      if (stat) {
        const to = path.join(parent, `.removed-${contentId}-${randomToken(6)}`);
        await fs.promises.rename(dir, to);
        hidden.push(to);
      }
      try {
        await (await fs.promises.open(dir, 'wx')).close();
        tombstoned = true;
      } catch (err) {
        // A writer made the directory again between the rename and the open: take it away again.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    if (!tombstoned) throw new Error(`could not tombstone the media of content ${contentId}`);
    // Hidden trees of an earlier withdrawal that did not finish (a node died) go too.
    const prefix = `.removed-${contentId}-`;
    for (const entry of await fs.promises.readdir(parent)) {
      if (entry.startsWith(prefix)) hidden.push(path.join(parent, entry));
    }
    for (const tree of new Set(hidden)) await fs.promises.rm(tree, { recursive: true, force: true });
  }

  async signedUrl(): Promise<string | null> {
    return null;
  }

  /** The directory is there (a full or read-only one is answered per write, 507, and leaves the node ready). */
  async check(): Promise<void> {
    if (!(await fs.promises.stat(this.root)).isDirectory()) throw new Error(`${this.root} is not a directory`);
  }

  /** The file a key names, after symbolic links (which must not lead out of the root either); null when none. */
  private async realFile(key: string): Promise<{ path: string; stat: fs.Stats } | null> {
    try {
      const real = await fs.promises.realpath(this.pathOf(key));
      const realRoot = await fs.promises.realpath(this.root);
      if (!real.startsWith(realRoot + path.sep)) return null;
      const stat = await fs.promises.stat(real);
      return stat.isFile() ? { path: real, stat } : null;
    } catch {
      return null;
    }
  }

  /**
   * Creates a directory under the root. A recursive mkdir on a read-only file system answers
   * ENOENT; the storage's own state (EROFS, EACCES) is what is thrown then, so callers can tell a
   * storage that cannot be written from a missing path.
   */
  private async mkdir(dir: string): Promise<void> {
    try {
      await fs.promises.mkdir(dir, { recursive: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') await fs.promises.access(this.root, fs.constants.W_OK);
      throw err;
    }
  }

  /** Writes through a hidden name renamed once complete, so a storage that fills up mid-write leaves no half file. */
  private async throughPartial(to: string, write: (partial: string) => Promise<void>): Promise<void> {
    const partial = path.join(path.dirname(to), `.partial-${randomUUID()}`);
    try {
      await write(partial);
      await fs.promises.rename(partial, to);
    } catch (err) {
      await fs.promises.rm(partial, { force: true }).catch(() => undefined);
      throw err;
    }
  }
}
