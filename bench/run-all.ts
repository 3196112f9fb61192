// `npm run bench`: runs every bench script of this folder one after another (each prints its own
// figures) and reports which ones failed. Helpers that other scripts drive are skipped.
//   npm run bench                 all of them
//   npm run bench -- user-me      only the scripts whose name contains one of the arguments
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// Not benchmarks on their own: child processes and shared parts of the socket benches, the preload
// of bench/soak.ts, the listing seed, the reference server and the profile reader of read-path.ts.
const helpers = new Set([
  'run-all.ts',
  'bench-helpers.ts',
  'socket-cluster.ts',
  'socket-clients.ts',
  'soak-probe.ts',
  'seed-content.ts',
  'plain-handler.ts',
  'profile-summary.ts',
]);
const filters = process.argv.slice(2);
const scripts = fs
  .readdirSync(here)
  .filter((f) => f.endsWith('.ts') && !helpers.has(f))
  .filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)))
  .sort();

const failed: string[] = [];
for (const script of scripts) {
  console.log(`\n== bench/${script}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, script)], { stdio: 'inherit', cwd: path.dirname(here) });
  if (run.status !== 0) failed.push(script);
}
console.log(`\n${scripts.length - failed.length} bench script(s) ran, ${failed.length} failed${failed.length ? `: ${failed.join(', ')}` : ''}`);
process.exit(failed.length ? 1 : 0);
