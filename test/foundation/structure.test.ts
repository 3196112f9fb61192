// The layering rules of docs/architecture.md, checked on the source so they hold for every later
// change: repositories are built only in the composition root (src/services.ts) and given to
// services; every repository extends Repository (so `in(tx)` binds it to a transaction); the
// domain (src/) imports none of its doors (http/, realtime/, jobs/).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const COMPOSITION_ROOT = 'src/services.ts';
const DOORS = ['http', 'realtime', 'jobs'];

/** Every .ts/.mts file under `dir` (relative to the project), as project-relative paths. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const child = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (/\.m?ts$/.test(entry.name)) out.push(child);
    }
  };
  walk(dir);
  return out;
}

/** The project's code outside the tests: the domain, its doors, the benches and the root files. */
function productFiles(): string[] {
  const rootFiles = fs.readdirSync(ROOT).filter((name) => /\.m?ts$/.test(name) && !name.endsWith('.config.ts'));
  return [...rootFiles, ...['src', ...DOORS, 'bench', 'scripts'].filter((d) => fs.existsSync(path.join(ROOT, d))).flatMap(sourceFiles)];
}

const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

/** `file:line: text` for each line of `rel` matching `pattern`. */
function matchingLines(rel: string, pattern: RegExp): string[] {
  return read(rel)
    .split('\n')
    .flatMap((line, i) => (pattern.test(line) ? [`${rel}:${i + 1}: ${line.trim()}`] : []));
}

/** The module specifiers `rel` imports or re-exports (static and dynamic). */
function importedSpecifiers(rel: string): string[] {
  const text = read(rel);
  const specifiers: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)) specifiers.push(m[1]);
  return specifiers;
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
    const doorDirs = DOORS.map((d) => path.join(ROOT, d) + path.sep);
    const crossings = sourceFiles('src').flatMap((rel) =>
      importedSpecifiers(rel)
        .filter((spec) => spec.startsWith('.'))
        .filter((spec) => {
          const target = path.resolve(ROOT, path.dirname(rel), spec);
          return doorDirs.some((dir) => target.startsWith(dir));
        })
        .map((spec) => `${rel} imports ${spec}`),
    );
    expect(crossings).toEqual([]);
  });
});
