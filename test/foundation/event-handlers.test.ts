// The table of domain events and their handlers (src/event-handlers.ts) is the only way onto the
// bus: a booted node has every listed handler subscribed, and nothing else; the bus refuses a
// pair the table lacks; and no product code subscribes around it.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { EVENT_HANDLERS } from '../../src/event-handlers.js';
import type { DomainEventBus } from '../../src/event-bus.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PRODUCT = ['src', 'realtime', 'jobs', 'http'];

const sourceFiles = (dir: string): string[] =>
  fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });

const booted = useTestServer();
let server: TestServer;
let bus: DomainEventBus;
beforeAll(() => {
  server = booted.current;
  bus = server.service.app.events;
});

const pairsOf = (subscriptions: { event: string; handler: string | null }[]) =>
  subscriptions.map(({ event, handler }) => `${event} ← ${handler ?? '(not in the table)'}`);

describe('the event-handler table', () => {
  it('has every listed handler subscribed on a running node, once', () => {
    const listed = Object.entries(EVENT_HANDLERS).flatMap(([event, handlers]) => Object.keys(handlers).map((handler) => `${event} ← ${handler}`));
    expect(listed.length).toBeGreaterThan(30);
    expect(pairsOf(bus.subscribed()).sort()).toEqual(listed.sort());
  });

  it('lists five handlers of video.completed, of every kind', () => {
    const kinds = Object.values(EVENT_HANDLERS['video.completed']);
    expect(kinds).toHaveLength(5);
    expect(new Set(kinds)).toEqual(new Set(['domain', 'door', 'job']));
  });

  it('refuses a handler the table does not list, and shows a plain subscriber as unlisted', () => {
    expect(() => bus.handle('video.completed', 'not-listed' as never, () => undefined)).toThrow(/not listed in src\/event-handlers\.ts/);
    expect(() => bus.handle('chat.read', 'read-model' as never, () => undefined)).toThrow(/not listed/);
    const stop = bus.subscribe('video.completed', () => undefined);
    try {
      expect(pairsOf(bus.subscribed())).toContain('video.completed ← (not in the table)');
    } finally {
      stop();
    }
    expect(bus.subscribed().every(({ handler }) => handler !== null)).toBe(true);
  });

  it('is the only way product code subscribes to the bus', () => {
    const around = PRODUCT.flatMap(sourceFiles)
      .filter((file) => file !== 'src/event-bus.ts')
      .flatMap((file) =>
        fs
          .readFileSync(path.join(ROOT, file), 'utf8')
          .split('\n')
          .flatMap((line, i) => (/\bevents\.subscribe\(/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(around).toEqual([]);
  });
});
