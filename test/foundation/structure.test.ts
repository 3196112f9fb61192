// The layering rules of docs/architecture.md, checked on the source so they hold for every later
// change: repositories are built only in the composition root (src/services.ts) and given to
// services; every repository extends Repository (so `in(tx)` binds it to a transaction); the
// domain (src/) imports none of its doors (http/, realtime/, jobs/); and the edges of the modules
// ("Edges"): a module of src/ is reached only through its index.ts, no two modules import each
// other, src/ has no import circle, a door imports no other door.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ROOT,
  buildGraph,
  circles,
  moduleCircles,
  mutualPairs,
  productFiles as graphFiles,
  sourceFiles,
  violations,
  type ImportGraph,
} from '../../scripts/import-graph.js';

const COMPOSITION_ROOT = 'src/services.ts';
const DOORS = ['http', 'realtime', 'jobs'];

/** The project's code outside the tests: the domain, its doors, the benches and the root files. */
function productFiles(): string[] {
  return [...graphFiles(), ...['bench', 'scripts'].filter((d) => fs.existsSync(path.join(ROOT, d))).flatMap((d) => sourceFiles(d))];
}

const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

/** `file:line: text` for each line of `rel` matching `pattern`. */
function matchingLines(rel: string, pattern: RegExp): string[] {
  return read(rel)
    .split('\n')
    .flatMap((line, i) => (pattern.test(line) ? [`${rel}:${i + 1}: ${line.trim()}`] : []));
}

describe('structure: repositories are given to services, built only in the composition root', () => {
  it(`finds "new XRepository(" only in ${COMPOSITION_ROOT}`, () => {
    const files = productFiles();
    expect(files).toContain(COMPOSITION_ROOT);
    const outside = files.filter((f) => f !== COMPOSITION_ROOT).flatMap((f) => matchingLines(f, /\bnew\s+[A-Z][A-Za-z0-9]*Repository\s*\(/));
    expect(outside).toEqual([]);
    // The check itself sees the calls it is about.
    expect(matchingLines(COMPOSITION_ROOT, /\bnew\s+[A-Z][A-Za-z0-9]*Repository\s*\(/).length).toBeGreaterThan(20);
  });

  it('makes every repository class extend Repository (src/db/repository.ts)', () => {
    const declarations = sourceFiles('src').flatMap((f) => matchingLines(f, /\bclass\s+[A-Z][A-Za-z0-9]*Repository\b/));
    expect(declarations.length).toBeGreaterThan(20);
    const loose = declarations.filter((line) => !/abstract class Repository\b/.test(line) && !/\bextends\s+Repository\b/.test(line));
    expect(loose).toEqual([]);
  });
});

describe('structure: the domain knows none of its doors', () => {
  it(`has no import from ${DOORS.map((d) => `${d}/`).join(', ')} in src/`, () => {
    const crossings = buildGraph()
      .edges.filter((e) => e.from.startsWith('src/') && DOORS.includes(e.to.split('/')[0]))
      .map((e) => `${e.from} imports ${e.specifier}`);
    expect(crossings).toEqual([]);
  });
});

describe('structure: modules with edges', () => {
  const graph = buildGraph();
  const show = (v: { rule: string; edge: { from: string; to: string } }) => `${v.edge.from} -> ${v.edge.to}: ${v.rule}`;

  it('reads the imports it checks (static, type-only and dynamic)', () => {
    expect(graph.edges.length).toBeGreaterThan(1000);
    const of = (file: string) => graph.edges.filter((e) => e.from === file).map((e) => e.to);
    expect(of('src/services.ts')).toContain('src/auth/caller.ts');
    expect(of('src/context.ts')).toContain('src/event-bus.ts'); // a type-only import
  });

  it('reaches another module of src/ only through its index.ts; src/ imports no door; no door imports another', () => {
    const found = violations(graph);
    expect(found.map(show)).toEqual([]);
  });

  it('has no two modules of src/ importing each other', () => {
    const pairs = mutualPairs(graph);
    expect(pairs).toEqual([]);
  });

  it('has no circle among the modules of src/ (a module that reaches back to itself through others)', () => {
    expect(moduleCircles(graph)).toEqual([]);
  });

  it('has no import circle in src/ (type imports included)', () => {
    const found = circles(graph, (f) => f.startsWith('src/'));
    expect(found).toEqual([]);
  });

  it('tells each kind of crossing apart (on a made-up graph)', () => {
    const made: ImportGraph = {
      files: ['src/a/x.ts', 'src/a/index.ts', 'src/b/y.ts', 'src/b/index.ts', 'src/shared/u.ts', 'http/r.ts', 'jobs/j.ts', 'src/services.ts'],
      edges: [
        ['src/a/x.ts', 'src/b/y.ts'], // an internal of another module
        ['src/a/x.ts', 'src/b/index.ts'],
        ['src/b/y.ts', 'src/a/index.ts'], // with the one above: a pair, and a circle through the index files
        ['src/a/index.ts', 'src/a/x.ts'],
        ['src/b/index.ts', 'src/b/y.ts'],
        ['src/a/x.ts', 'src/shared/u.ts'], // the base: allowed
        ['src/shared/u.ts', 'src/a/index.ts'], // the base importing a domain
        ['src/b/y.ts', 'http/r.ts'], // the domain importing a door
        ['http/r.ts', 'jobs/j.ts'], // a door importing another
        ['http/r.ts', 'src/a/x.ts'], // a door reaching an internal
        ['src/services.ts', 'src/a/x.ts'], // the composition root: allowed
      ].map(([from, to]) => ({ from, to, specifier: to })),
    };
    expect(violations(made).map(show)).toEqual([
      'src/a/x.ts -> src/b/y.ts: imports an internal of src/b (not its index.ts)',
      'src/shared/u.ts -> src/a/index.ts: the base imports a domain',
      'src/b/y.ts -> http/r.ts: src/ imports a door',
      'http/r.ts -> jobs/j.ts: a door imports another door',
      'http/r.ts -> src/a/x.ts: imports an internal of src/a (not its index.ts)',
    ]);
    expect(mutualPairs(made)).toEqual(['src/a <-> src/b', 'src/a <-> src/shared']);
    expect(circles(made, (f) => f.startsWith('src/'))).toEqual([['src/a/index.ts', 'src/a/x.ts', 'src/b/index.ts', 'src/b/y.ts', 'src/shared/u.ts']]);
  });

  it('finds a circle of three modules that no two files close (on a made-up graph)', () => {
    const made: ImportGraph = {
      files: ['src/a/index.ts', 'src/a/p.ts', 'src/b/index.ts', 'src/c/index.ts', 'src/events.ts'],
      edges: [
        ['src/a/index.ts', 'src/b/index.ts'],
        ['src/b/index.ts', 'src/c/index.ts'],
        ['src/c/index.ts', 'src/a/p.ts'], // a file of a that imports nothing: no file circle
        ['src/events.ts', 'src/a/p.ts'], // the event map's payload import: not a module edge
        ['src/a/index.ts', 'src/events.ts'],
      ].map(([from, to]) => ({ from, to, specifier: to })),
    };
    expect(circles(made, (f) => f.startsWith('src/'))).toEqual([]);
    expect(moduleCircles(made)).toEqual([['src/a', 'src/b', 'src/c']]);
  });
});
