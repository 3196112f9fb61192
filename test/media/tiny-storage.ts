// A real, small media storage for the storage-failure tests: a tmpfs the test mounts (root, and a
// kernel that lets the container mount), that can be filled to a few bytes left and turned
// read-only, as a full or failing volume under MEDIA_DIR would be.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TinyStorage {
  dir: string;
  /** Bytes a file may still take. */
  free: () => number;
  /** Writes a filler file so that about `bytes` are left (0: full). */
  leave: (bytes: number) => void;
  /** Removes the filler. */
  unfill: () => void;
  remount: (mode: 'ro' | 'rw') => void;
  remove: () => void;
}

const FILLER = '.filler';

export function mountTinyStorage(size: string): TinyStorage {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-tiny-media-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  const filler = path.join(dir, FILLER);
  const free = () => {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  };
  return {
    dir,
    free,
    leave: (bytes) => {
      const fd = fs.openSync(filler, 'a');
      const block = Buffer.alloc(64 * 1024, 1);
      try {
        for (let room = free() - bytes; room > 0; room = free() - bytes) fs.writeSync(fd, block, 0, Math.min(block.length, room));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        fs.closeSync(fd);
      }
    },
    unfill: () => fs.rmSync(filler, { force: true }),
    remount: (mode) => execFileSync('mount', ['-o', `remount,${mode}`, dir], { stdio: 'ignore' }),
    remove: () => {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this run may mount a tmpfs (checked by doing it). */
export function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    mountTinyStorage('64k').remove();
    return true;
  } catch {
    return false;
  }
}

/** Every file under a directory, relative, with its size (the filler left out). */
export function filesUnder(dir: string): { file: string; size: number }[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name !== FILLER)
    .map((e) => {
      const full = path.join(e.parentPath, e.name);
      return { file: path.relative(dir, full), size: fs.statSync(full).size };
    });
}
