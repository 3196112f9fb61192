// Start time and idle memory of one node, as an operator starts it: the time from spawn to the
// first 200 from /readyz, then the resident memory (RSS) after STARTUP_IDLE_MS (5 s) of idle, read
// from /proc for the whole process tree (a `tsx main.ts` start is two node processes: the tsx CLI
// and the node it runs) and for the serving node alone. Each runner starts STARTUP_RUNS times
// (3) on the same data: the first start of an embedded data directory (initdb, migrations) is
// made once beforehand and not counted, so the figures are those of a restart.
//   npx tsx bench/startup.ts                       embedded, both runners
//   STARTUP_RUNNERS=dist STARTUP_RUNS=5 npx tsx bench/startup.ts
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres BENCH_REDIS_URL=redis://127.0.0.1:6379/0 npx tsx bench/startup.ts
// Runners: `tsx` = `node_modules/.bin/tsx main.ts` (the former `npm start` without npm),
// `dist` = `node dist/main.js` (run `npm run build` first). Extra env for the node (e.g.
// PGLITE_SHARED_BUFFERS to compare settings) passes through.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort, sleep } from './bench-helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.STARTUP_RUNS ?? 3);
const IDLE_MS = Number(process.env.STARTUP_IDLE_MS ?? 5_000);
const RUNNERS = (process.env.STARTUP_RUNNERS ?? 'tsx,dist').split(',') as ('tsx' | 'dist')[];
const serverMode = Boolean(process.env.BENCH_DATABASE_URL);

const commands: Record<'tsx' | 'dist', string[]> = {
  tsx: [path.join(root, 'node_modules/.bin/tsx'), 'main.ts'],
  dist: [process.execPath, 'dist/main.js'],
};

/** RSS in bytes of `pid` alone, and of it with all its descendants. */
function rss(pid: number): { own: number; tree: number } {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone meanwhile */
    }
  }
  const of = (p: number) => {
    try {
      const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'));
      return kb ? Number(kb[1]) * 1024 : 0;
    } catch {
      return 0;
    }
  };
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  // The serving node is the deepest node process of the tree (tsx's child, or the node itself).
  const nodes = tree.filter((p) => {
    try {
      return fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'node';
    } catch {
      return false;
    }
  });
  return { own: of(nodes[nodes.length - 1] ?? pid), tree: tree.reduce((sum, p) => sum + of(p), 0) };
}

interface Run {
  startMs: number;
  ownMb: number;
  treeMb: number;
}

async function startOnce(runner: 'tsx' | 'dist', env: Record<string, string>, measure: boolean): Promise<Run> {
  const port = await freePort();
  const [cmd, ...args] = commands[runner];
  const started = performance.now();
  const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${runner} exited with ${child.exitCode}`);
      if (performance.now() - started > 180_000) throw new Error(`${runner} not ready after 180 s`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) break;
      } catch {
        /* not listening yet */
      }
      await sleep(25);
    }
    const startMs = performance.now() - started;
    if (!measure) return { startMs, ownMb: 0, treeMb: 0 };
    await sleep(IDLE_MS);
    const mem = rss(child.pid!);
    return { startMs, ownMb: mem.own / 2 ** 20, treeMb: mem.tree / 2 ** 20 };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-startup-'));
  const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'production' };
  let dropDatabase: (() => Promise<void>) | null = null;
  if (serverMode) {
    const name = `revs_startup_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: process.env.BENCH_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(process.env.BENCH_DATABASE_URL!);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    if (process.env.BENCH_REDIS_URL) {
      env.REDIS_URL = process.env.BENCH_REDIS_URL;
      env.REDIS_PREFIX = `revs-startup-${randomBytes(4).toString('hex')}:`;
    }
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: process.env.BENCH_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    };
  }
  try {
    // First start of this data: initdb / migrations, not counted.
    await startOnce(RUNNERS.includes('dist') ? 'dist' : 'tsx', env, false);
    console.log(
      `mode: ${serverMode ? 'server' : 'embedded'}; ${RUNS} runs each; RSS after ${IDLE_MS} ms idle; node ${process.version}; ${os.cpus().length} cores`,
    );
    console.log('runner | start to /readyz 200, median (min-max) ms | RSS serving node, median MB | RSS process tree, median MB');
    for (const runner of RUNNERS) {
      const runs: Run[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await startOnce(runner, env, true));
      const starts = runs.map((r) => r.startMs);
      console.log(
        `${runner} | ${median(starts).toFixed(0)} (${Math.min(...starts).toFixed(0)}-${Math.max(...starts).toFixed(0)}) | ` +
          `${median(runs.map((r) => r.ownMb)).toFixed(0)} | ${median(runs.map((r) => r.treeMb)).toFixed(0)}`,
      );
    }
  } finally {
    await dropDatabase?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
