// The coalescing behind content:stats on a fake clock: the first change flushes at once, changes
// during a flush and the second after it make one more flush at the second's end, flushes are at
// least a second apart however slow each is, and a quiet key is forgotten.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeyedThrottle } from '../../src/shared/keyed-throttle.js';

describe('KeyedThrottle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('should flush a burst at its start and once more at the end of the second', async () => {
    const flushed: number[] = [];
    const throttle = new KeyedThrottle(1000, async () => {
      flushed.push(Date.now());
    });
    const start = Date.now();
    for (let i = 0; i < 10; i++) {
      throttle.touch('item');
      await vi.advanceTimersByTimeAsync(50);
    }
    await vi.advanceTimersByTimeAsync(3000);
    expect(flushed.map((t) => t - start)).toEqual([0, 1000]);
    throttle.stop();
  });

  it('should keep flushes a second apart when each flush is slow, and keep each key apart', async () => {
    const flushed: { key: string; done: number }[] = [];
    const throttle = new KeyedThrottle(1000, async (key) => {
      await new Promise((r) => setTimeout(r, 700));
      flushed.push({ key, done: Date.now() });
    });
    const start = Date.now();
    for (let i = 0; i < 40; i++) {
      throttle.touch('a');
      if (i % 10 === 0) throttle.touch('b');
      await vi.advanceTimersByTimeAsync(100);
    }
    await vi.advanceTimersByTimeAsync(5000);
    const a = flushed.filter((f) => f.key === 'a').map((f) => f.done - start);
    for (let i = 1; i < a.length; i++) expect(a[i] - a[i - 1]).toBeGreaterThanOrEqual(1000);
    // Touches ran for 4 s: the last flush comes after the last touch.
    expect(a.at(-1)!).toBeGreaterThan(3900);
    expect(flushed.filter((f) => f.key === 'b').length).toBeGreaterThanOrEqual(2);
    throttle.stop();
  });

  it('should flush again at once for a key quiet for longer than the interval', async () => {
    const flushed: number[] = [];
    const throttle = new KeyedThrottle(1000, async () => {
      flushed.push(Date.now());
    });
    const start = Date.now();
    throttle.touch('item');
    await vi.advanceTimersByTimeAsync(2500);
    throttle.touch('item');
    await vi.advanceTimersByTimeAsync(10);
    expect(flushed.map((t) => t - start)).toEqual([0, 2500]);
    throttle.stop();
  });
});
