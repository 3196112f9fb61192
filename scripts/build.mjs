// The production build: compiles the service (tsconfig.build.json) to dist/, copies the files it
// reads at run time beside the compiled code (SQL migrations, JSON data, worker scripts: every
// file of the source folders that is not TypeScript), and writes a stamp with the hash of the
// sources it was built from, so `npm start` (scripts/prestart.mjs) rebuilds only when they changed.
//   node scripts/build.mjs [--out-dir DIR]     (default dist; DIR must lie inside the project so
//                                               that node_modules and package.json resolve)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Folders whose files make the service; their non-TypeScript files are copied as they are. */
const SOURCE_DIRS = ['src', 'http', 'realtime', 'jobs'];
/** Files at the top that the build depends on. */
const TOP_FILES = ['main.ts', 'service.ts', 'metrics.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];
const STAMP = '.build-stamp';

function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
}

/** Every input of the build, relative to the project root, sorted. */
function inputs() {
  const files = [
    ...TOP_FILES.filter((f) => fs.existsSync(path.join(root, f))),
    ...SOURCE_DIRS.flatMap((d) => walk(path.join(root, d)).map((f) => path.relative(root, f))),
  ];
  return files.sort();
}

/** A hash of the names and contents of every input. */
export function sourceHash() {
  const hash = createHash('sha256');
  for (const file of inputs()) {
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

/** True when outDir has no build, or one made from other sources. */
export function isStale(outDir = path.join(root, 'dist')) {
  const stamp = path.join(outDir, STAMP);
  if (!fs.existsSync(path.join(outDir, 'main.js')) || !fs.existsSync(stamp)) return true;
  return fs.readFileSync(stamp, 'utf8').trim() !== sourceHash();
}

export function build(outDir = path.join(root, 'dist')) {
  const hash = sourceHash();
  fs.rmSync(outDir, { recursive: true, force: true });
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', outDir], { cwd: root, stdio: 'inherit' });
  if (compiled.status !== 0) throw new Error(`tsc failed (exit ${compiled.status}); nothing to start`);
  for (const dir of SOURCE_DIRS) {
    for (const file of walk(path.join(root, dir))) {
      if (file.endsWith('.ts')) continue;
      const target = path.join(outDir, path.relative(root, file));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(file, target);
    }
  }
  fs.writeFileSync(path.join(outDir, STAMP), `${hash}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out-dir');
  const outDir = at > 0 ? path.resolve(process.argv[at + 1]) : path.join(root, 'dist');
  const started = Date.now();
  try {
    build(outDir);
    console.log(`built ${path.relative(root, outDir) || '.'} in ${Date.now() - started} ms`);
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
