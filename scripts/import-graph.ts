// The project's import graph, read from the source with the TypeScript compiler's pre-processor
// (static, type-only, re-exports and `import()` alike), so the structure test and the report
// (scripts/structure-report.ts) count the same edges.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const DOORS = ['http', 'realtime', 'jobs'] as const;
/** The base of the domain: every module may import them, they import no domain. */
export const BASE_MODULES = ['src/shared', 'src/db', 'src/config'] as const;
/** The composition root: it builds the repositories and services, so it may reach internals. */
export const COMPOSITION_ROOTS = ['src/services.ts', 'service.ts', 'main.ts'] as const;
/**
 * The map of domain events (name → payload type): it reads each payload's type from the file that
 * declares it, not from the module's index.ts, which would bring the whole module and close a
 * circle through every service that publishes. The circle test keeps those files free of the rest.
 */
export const EVENT_MAP = 'src/events.ts';

/** Every .ts/.mts/.mjs file under `dir` (project-relative, posix separators). */
export function sourceFiles(dir: string, root = ROOT): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (/\.(m?ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.mts')) out.push(child);
    }
  };
  walk(dir);
  return out.sort();
}

/** The product code: the domain, its doors and the root files (tests, benches and scripts left out). */
export function productFiles(root = ROOT): string[] {
  const rootFiles = fs.readdirSync(root).filter((name) => /\.m?ts$/.test(name) && !name.endsWith('.config.ts'));
  return [...rootFiles.sort(), ...['src', ...DOORS].flatMap((dir) => sourceFiles(dir, root))];
}

/** Where a relative specifier of `from` lands, or null for a package or a file that is not code. */
function resolve(from: string, specifier: string, root: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const candidates = [target, target.replace(/\.js$/, '.ts'), target.replace(/\.mjs$/, '.mts'), `${target}.ts`, `${target}/index.ts`];
  for (const candidate of candidates) {
    if (/\.(m?ts|mjs)$/.test(candidate) && fs.existsSync(path.join(root, candidate)) && fs.statSync(path.join(root, candidate)).isFile()) return candidate;
  }
  return null;
}

export interface ImportEdge {
  from: string;
  to: string;
  specifier: string;
}

/** The project files `file` imports or re-exports (type-only and dynamic imports included). */
export function importsOf(file: string, root = ROOT): ImportEdge[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const info = ts.preProcessFile(text, true, true);
  const edges: ImportEdge[] = [];
  for (const ref of info.importedFiles) {
    const to = resolve(file, ref.fileName, root);
    if (to) edges.push({ from: file, to, specifier: ref.fileName });
  }
  // `import('./x.js').Type` in a type position is not a call the pre-processor reports.
  for (const m of text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
    const to = resolve(file, m[1], root);
    if (to && !edges.some((e) => e.to === to)) edges.push({ from: file, to, specifier: m[1] });
  }
  return edges;
}

/**
 * The module a file belongs to: `src/<folder>` for a domain folder, `src/<name>` for a file at the
 * top of src/, the door's folder for a door, the file itself at the project's root.
 */
export function moduleOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'src') return parts.length > 2 ? `src/${parts[1]}` : `src/${parts[1].replace(/\.m?ts$/, '')}`;
  if ((DOORS as readonly string[]).includes(parts[0])) return parts[0];
  return file;
}

export const isDoor = (module: string) => (DOORS as readonly string[]).includes(module);
export const isBase = (module: string) => (BASE_MODULES as readonly string[]).includes(module);
export const isCompositionRoot = (file: string) => (COMPOSITION_ROOTS as readonly string[]).includes(file);
/** A domain module's public surface: its folder's index.ts, or the file itself for a top-level file. */
export function isPublicSurface(file: string): boolean {
  const parts = file.split('/');
  return parts[0] === 'src' && (parts.length === 2 || (parts.length === 3 && parts[2] === 'index.ts'));
}

export interface ImportGraph {
  files: string[];
  edges: ImportEdge[];
}

/** The import graph of the product code of the checkout at `root` (this one by default). */
export function buildGraph(root = ROOT): ImportGraph {
  const files = productFiles(root);
  return { files, edges: files.flatMap((file) => importsOf(file, root)) };
}

/** Strongly connected components of more than one file (or a file importing itself), among `files`. */
export function circles(graph: ImportGraph, within: (file: string) => boolean): string[][] {
  const next = new Map<string, string[]>();
  for (const e of graph.edges) if (within(e.from) && within(e.to)) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let counter = 0;
  // Iterative Tarjan: the graph is deep enough that recursion is a risk.
  for (const start of graph.files.filter(within)) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; i: number }> = [{ node: start, i: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const targets = next.get(frame.node) ?? [];
      if (frame.i < targets.length) {
        const target = targets[frame.i++];
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, i: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = (next.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) found.push(component.sort());
      }
    }
  }
  return found.sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
}

/** Module-level edges (`from` module imports `to` module), each with the file edges behind it. */
export function moduleEdges(graph: ImportGraph): Map<string, ImportEdge[]> {
  const out = new Map<string, ImportEdge[]>();
  for (const e of graph.edges) {
    const a = moduleOf(e.from);
    const b = moduleOf(e.to);
    if (a === b) continue;
    const key = `${a} -> ${b}`;
    out.set(key, [...(out.get(key) ?? []), e]);
  }
  return out;
}

/**
 * Circles among the modules of src/ (a module as one node), the composition root and the event
 * map's imports of payload files left out: a module that reaches back to itself through others
 * has no edge, even when no two files close a circle.
 */
export function moduleCircles(graph: ImportGraph): string[][] {
  const inSrc = (file: string) => file.startsWith('src/') && !isCompositionRoot(file);
  const modules = [...new Set(graph.files.filter(inSrc).map(moduleOf))];
  const edges = graph.edges
    .filter((e) => inSrc(e.from) && e.from !== EVENT_MAP && inSrc(e.to) && moduleOf(e.from) !== moduleOf(e.to))
    .map((e) => ({ from: moduleOf(e.from), to: moduleOf(e.to), specifier: e.specifier }));
  return circles({ files: modules, edges }, () => true);
}

/** Pairs of src/ modules that import each other (the composition root left out), as "a <-> b". */
export function mutualPairs(graph: ImportGraph): string[] {
  const edges = moduleEdges({ files: graph.files, edges: graph.edges.filter((e) => !isCompositionRoot(e.from)) });
  const pairs: string[] = [];
  for (const key of edges.keys()) {
    const [a, b] = key.split(' -> ');
    if (a.startsWith('src/') && b.startsWith('src/') && a < b && edges.has(`${b} -> ${a}`)) pairs.push(`${a} <-> ${b}`);
  }
  return pairs.sort();
}

export interface Violation {
  rule: string;
  edge: ImportEdge;
}

/**
 * Every import that breaks a rule of docs/architecture.md ("Edges"): a module reaching another
 * src/ module's internals, src/ importing a door, a door importing another door.
 */
export function violations(graph: ImportGraph): Violation[] {
  const out: Violation[] = [];
  for (const edge of graph.edges) {
    if (isCompositionRoot(edge.from)) continue;
    const a = moduleOf(edge.from);
    const b = moduleOf(edge.to);
    if (a === b) continue;
    if (a.startsWith('src/') && isDoor(b)) out.push({ rule: 'src/ imports a door', edge });
    else if (isDoor(a) && isDoor(b)) out.push({ rule: 'a door imports another door', edge });
    else if (b.startsWith('src/') && !isBase(b) && !isPublicSurface(edge.to) && edge.from !== EVENT_MAP)
      out.push({ rule: `imports an internal of ${b} (not its index.ts)`, edge });
    else if (isBase(a) && b.startsWith('src/') && !isBase(b)) out.push({ rule: 'the base imports a domain', edge });
  }
  return out;
}
