// Where a CPU profile's time went: reads a `.cpuprofile` written by `node --cpu-prof` and prints
// the self time by function and by file (a package, or a folder of ours), and the time spent under
// each category of the request path (token verification, driver, rate limiter, SQL compilation,
// validation, logging, the envelope), counted where a frame of the category is on the stack.
//   npx tsx bench/profile-summary.ts <file.cpuprofile> [--top 20] [--skip-ms 0]
// --skip-ms leaves out the first milliseconds of the profile (a node's start-up before the load).
// bench/read-path.ts calls summariseProfile on the profiles it takes (BENCH_PROFILE_DIR).
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';

const MAX_PROFILE_BYTES = 512 * 1024 * 1024;

const profileSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.number().int(),
      callFrame: z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number().int() }),
      children: z.array(z.number().int()).optional(),
    }),
  ),
  samples: z.array(z.number().int()),
  timeDeltas: z.array(z.number()),
});
type CallFrame = z.infer<typeof profileSchema>['nodes'][number]['callFrame'];

/** Categories of the request path, each recognised by a frame on the stack. */
const CATEGORIES: { name: string; matches: (f: CallFrame) => boolean }[] = [
  { name: 'token verification (jose, node:crypto)', matches: (f) => f.url.includes('/node_modules/jose/') },
  { name: 'rate limiter (rate-limiter-flexible)', matches: (f) => f.url.includes('/rate-limiter-flexible/') },
  { name: 'Redis client (ioredis)', matches: (f) => f.url.includes('/ioredis/') || f.url.includes('/redis-parser/') },
  { name: 'database driver (pg, pg-protocol, PGlite)', matches: (f) => /\/node_modules\/(pg|pg-[a-z]+|postgres-[a-z]+|@electric-sql\/pglite)\//.test(f.url) },
  { name: 'SQL compilation (drizzle-orm)', matches: (f) => f.url.includes('/drizzle-orm/') },
  { name: 'validation (zod)', matches: (f) => f.url.includes('/zod/') },
  { name: 'logging (pino)', matches: (f) => /\/node_modules\/(pino|sonic-boom|thread-stream)/.test(f.url) },
  { name: 'metrics (prom-client)', matches: (f) => f.url.includes('/prom-client/') },
  { name: 'envelope and respond (http/envelope, http/steps/respond)', matches: (f) => /\/http\/(envelope|steps\/respond)\.ts/.test(f.url) },
  { name: 'JSON.stringify / JSON.parse (native)', matches: (f) => f.url === '' && (f.functionName === 'stringify' || f.functionName === 'parse') },
  { name: 'garbage collector', matches: (f) => f.functionName === '(garbage collector)' },
];

/** A file's place: a package under node_modules, a folder of the project, or a Node internal. */
function fileOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const ours = /\/(src|http|realtime|jobs|bench)\/(.+)$/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  return url.replace(/^file:\/\//, '');
}

const functionOf = (frame: CallFrame): string => `${frame.functionName || '(anonymous)'} ${frame.url ? `${fileOf(frame)}:${frame.lineNumber + 1}` : ''}`.trim();

export interface ProfileSummary {
  /** Sampled wall time, ms (after the skipped start). */
  totalMs: number;
  idleMs: number;
  byFunction: [string, number][];
  byFile: [string, number][];
  byCategory: [string, number][];
}

export function summariseProfile(file: string, options: { skipMs?: number } = {}): ProfileSummary {
  if (fs.statSync(file).size > MAX_PROFILE_BYTES) throw new Error(`${file} is larger than ${MAX_PROFILE_BYTES} bytes`);
  const profile = profileSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  // The categories on each node's stack (itself and its callers), computed once per node.
  const categoriesOf = new Map<number, Set<string>>();
  const stackCategories = (id: number): Set<string> => {
    const known = categoriesOf.get(id);
    if (known) return known;
    const up = parent.get(id);
    const set = new Set(up === undefined ? [] : stackCategories(up));
    const frame = byId.get(id)!.callFrame;
    for (const c of CATEGORIES) if (c.matches(frame)) set.add(c.name);
    categoriesOf.set(id, set);
    return set;
  };

  const selfByFunction = new Map<string, number>();
  const selfByFile = new Map<string, number>();
  const underCategory = new Map<string, number>();
  let elapsed = 0;
  let totalMs = 0;
  let idleMs = 0;
  const skipMs = options.skipMs ?? 0;
  for (let i = 0; i < profile.samples.length; i++) {
    // timeDeltas[i] is the time from the previous sample to this one; the next delta is how long
    // this sample's stack was running.
    elapsed += profile.timeDeltas[i] / 1000;
    if (elapsed < skipMs) continue;
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const node = byId.get(profile.samples[i]);
    if (!node) continue;
    totalMs += ms;
    if (node.callFrame.functionName === '(idle)') {
      idleMs += ms;
      continue;
    }
    const fn = functionOf(node.callFrame);
    selfByFunction.set(fn, (selfByFunction.get(fn) ?? 0) + ms);
    const f = fileOf(node.callFrame);
    selfByFile.set(f, (selfByFile.get(f) ?? 0) + ms);
    for (const c of stackCategories(node.id)) underCategory.set(c, (underCategory.get(c) ?? 0) + ms);
  }
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return { totalMs, idleMs, byFunction: sorted(selfByFunction), byFile: sorted(selfByFile), byCategory: sorted(underCategory) };
}

/** The summary as markdown tables, percentages of the busy (not idle) time. */
export function formatSummary(title: string, s: ProfileSummary, top = 20): string {
  const busy = Math.max(s.totalMs - s.idleMs, 1e-9);
  const row = ([name, ms]: [string, number]) => `| ${name.replace(/\|/g, '\\|')} | ${ms.toFixed(0)} | ${((ms / busy) * 100).toFixed(1)} % |`;
  return [
    `### ${title}`,
    '',
    `sampled ${(s.totalMs / 1000).toFixed(1)} s, busy ${(busy / 1000).toFixed(1)} s (${((busy / Math.max(s.totalMs, 1e-9)) * 100).toFixed(0)} %), idle ${(s.idleMs / 1000).toFixed(1)} s`,
    '',
    '| category (a frame of it on the stack) | ms | of busy |',
    '|---|---:|---:|',
    ...s.byCategory.map(row),
    '',
    `| self time by file (top ${top}) | ms | of busy |`,
    '|---|---:|---:|',
    ...s.byFile.slice(0, top).map(row),
    '',
    `| self time by function (top ${top}) | ms | of busy |`,
    '|---|---:|---:|',
    ...s.byFunction.slice(0, top).map(row),
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({ options: { top: { type: 'string' }, 'skip-ms': { type: 'string' } }, allowPositionals: true });
  const args = z
    .object({
      file: z.string().min(1),
      top: z.coerce.number().int().min(1).max(500).default(20),
      skipMs: z.coerce.number().min(0).max(3_600_000).default(0),
    })
    .parse({ file: positionals[0], top: values.top, skipMs: values['skip-ms'] });
  console.log(formatSummary(args.file, summariseProfile(args.file, { skipMs: args.skipMs }), args.top));
}
