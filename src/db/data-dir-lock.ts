// The embedded data directory belongs to one process: two PGlite instances on one data dir
// corrupt it. A lock file holding the owner's pid makes a second process refuse to start; a lock
// left by a process that died (SIGKILL) is taken over.
import fs from 'node:fs';
import path from 'node:path';

/** Takes DATA_DIR for this process; returns the release. Throws when a live process holds it. */
export function acquireDataDirLock(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, 'service.lock');
  const tryCreate = (): boolean => {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return false;
    }
  };
  if (!tryCreate()) {
    // A lock left by a process that died (SIGKILL) is stale: take it over.
    const holder = Number(fs.readFileSync(lockFile, 'utf8').trim());
    let alive = false;
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid) {
      try {
        process.kill(holder, 0);
        alive = true;
      } catch (err) {
        alive = (err as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
    if (alive) throw new Error(`DATA_DIR ${dataDir} is in use by process ${holder}`);
    fs.rmSync(lockFile, { force: true });
    if (!tryCreate()) throw new Error(`DATA_DIR ${dataDir} is in use`);
  }
  return () => fs.rmSync(lockFile, { force: true });
}
