// Prints the figures of docs/architecture.md, "Edges": import circles in src/, pairs of modules of
// src/ importing each other, imports that reach another module's internals, and what each door is
// given of the services. The graph is the one test/foundation/structure.test.ts checks.
//   npx tsx scripts/structure-report.ts           this checkout
//   npx tsx scripts/structure-report.ts <dir>     another checkout (e.g. a `git worktree add` of an
//                                                 older commit): its graph only, not its doors
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, buildGraph, circles, moduleCircles, moduleOf, mutualPairs, violations } from './import-graph.js';

const root = process.argv[2] ? path.resolve(process.argv[2]) : ROOT;
const graph = buildGraph(root);
const out: string[] = [];

const found = circles(graph, (file) => file.startsWith('src/'));
out.push(`Import circles in src/: ${found.length}${found.length ? ` (files: ${found.map((c) => c.length).join(', ')})` : ''}`);
for (const circle of found) out.push(`  - ${circle.join(' ')}`);

const moduleLoops = moduleCircles(graph);
out.push(`Circles among the modules of src/: ${moduleLoops.length}`);
for (const loop of moduleLoops) out.push(`  - ${loop.join(' ')}`);

const pairs = mutualPairs(graph);
out.push(`Pairs of modules of src/ importing each other: ${pairs.length}`);
for (const pair of pairs) out.push(`  - ${pair}`);

const crossings = violations(graph);
const byTarget = new Map<string, number>();
for (const v of crossings) byTarget.set(moduleOf(v.edge.to), (byTarget.get(moduleOf(v.edge.to)) ?? 0) + 1);
out.push(`Imports breaking an edge (another module's internals, a door importing a door, src/ importing a door): ${crossings.length}`);
for (const [module, count] of [...byTarget].sort((a, b) => b[1] - a[1])) out.push(`  - into ${module}: ${count}`);

if (root === ROOT) {
  const { routeModules } = await import('../http/routes/index.js');
  const named = new Map<unknown, string>();
  for (const file of fs.readdirSync(path.join(ROOT, 'http/routes')).filter((f) => f.endsWith('.ts'))) {
    for (const [name, value] of Object.entries(await import(`../http/routes/${file}`))) named.set(value, `http/routes/${file} ${name}`);
  }
  const { RAW_ROUTE_SERVICES } = await import('../http/raw-routes.js');
  const { scheduledJobs } = await import('../jobs/scheduled-jobs.js');
  const { WORKER_SERVICES } = await import('../jobs/index.js');
  const list = (uses: readonly string[]) => (uses.length ? uses.join(', ') : '(none)');
  out.push('What each door is given of the services:');
  out.push(`  http: ${routeModules.length} route modules`);
  for (const m of routeModules) out.push(`    - ${named.get(m) ?? '(a route module)'}: ${list(m.uses)}`);
  out.push(`    - raw routes (tus, export download): ${list(RAW_ROUTE_SERVICES)}`);
  out.push(`  jobs: ${Object.keys(WORKER_SERVICES).length} workers, ${scheduledJobs.length} cron jobs`);
  for (const [name, uses] of Object.entries(WORKER_SERVICES)) out.push(`    - ${name}: ${list(uses)}`);
  for (const job of scheduledJobs) out.push(`    - ${job.name} (cron): ${list(job.uses)}`);
}

process.stdout.write(`${out.join('\n')}\n`);
