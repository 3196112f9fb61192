// Namespaces are declared like routes (realtime/namespace.ts): one declaration per namespace, from
// which the server's namespaces, the event contract and the AsyncAPI document are derived; and the
// door decides nobody's delivery: the rules (blocks, notification settings, the counts' pace) are
// the domain's (src/live/audience.ts, src/content/live/counts.ts). Checked on the declarations and
// on the source, so they hold for every later change.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NAMESPACES, namespaces } from '../../realtime/namespaces/index.js';
import { realtimeContract } from '../../realtime/contract.js';
import { buildAsyncApiDocument } from '../../realtime/asyncapi.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** `file:line: text` for each line of the files matching `pattern`. */
const matching = (files: string[], pattern: RegExp) =>
  files.flatMap((rel) =>
    fs
      .readFileSync(path.join(ROOT, rel), 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${rel}:${i + 1}: ${line.trim()}`] : [])),
  );

describe('namespace declarations', () => {
  it('declares each namespace the server opens once (the root one carries no event)', () => {
    const names = namespaces.map((declared) => declared.name);
    expect(new Set(names).size).toBe(names.length);
    expect(NAMESPACES).toEqual(['/', ...names]);
    expect(names).toEqual(['/chat', '/comments', '/notifications', '/processing', '/feed']);
  });

  it('derives the contract from the declarations: every client event and push, and recovery:ready everywhere', () => {
    expect(Object.keys(realtimeContract)).toEqual(namespaces.map((declared) => declared.name));
    for (const declared of namespaces) {
      const contract = realtimeContract[declared.name];
      expect(contract.description).toBe(declared.description);
      expect(Object.keys(contract.client)).toEqual(Object.keys(declared.events));
      expect(Object.keys(contract.server)).toEqual(['recovery:ready', ...Object.keys(declared.pushes)]);
      for (const [name, event] of Object.entries<{ payload: unknown; ack: unknown }>(declared.events)) {
        expect(contract.client[name].payload, name).toBe(event.payload);
        expect(contract.client[name].ack, name).toBe(event.ack);
      }
      for (const [name, pushed] of Object.entries<{ payload: unknown }>(declared.pushes)) expect(contract.server[name].payload, name).toBe(pushed.payload);
    }
  });

  it('documents each declared event in the AsyncAPI document, under its own channel', () => {
    const doc = buildAsyncApiDocument('http://localhost:3000') as { channels: Record<string, { address: string; messages: Record<string, { name: string }> }> };
    for (const declared of namespaces) {
      const channel = Object.values(doc.channels).find((c) => c.address === declared.name);
      const names = Object.values(channel?.messages ?? {}).map((m) => m.name);
      for (const event of Object.keys(declared.events)) expect(names, `${declared.name} ${event}`).toEqual(expect.arrayContaining([event, `${event} ack`]));
      for (const pushed of Object.keys(declared.pushes)) expect(names, `${declared.name} ${pushed}`).toContain(pushed);
    }
  });
});

describe("the realtime door decides nobody's delivery", () => {
  // Who may have an event (blocks, settings) and how often counts go out are the domain's rules.
  const RULES = /\bblockersOf\(|\beitherWayOf\(|\.wants\(|\bnew KeyedThrottle\(/;

  it('finds no block lookup, settings check or counts throttle in realtime/', () => {
    expect(matching(sourceFiles('realtime'), RULES)).toEqual([]);
  });

  it('finds them in the domain services the door asks (the check sees what it looks for)', () => {
    expect(matching(['src/live/audience.ts', 'src/content/live/counts.ts'], RULES).length).toBeGreaterThanOrEqual(4);
  });

  it('has no hand-written event map left in realtime/events.ts', () => {
    expect(matching(['realtime/events.ts'], /^\s*'[a-z]+:[a-z-]+'\s*:\s*\(/)).toEqual([]);
  });
});
