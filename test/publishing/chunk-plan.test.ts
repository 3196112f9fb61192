// TikTok's media transfer rules, as planChunks applies them.
import { describe, expect, it } from 'vitest';
import { planChunks } from '../../src/publishing/tiktok-client.js';

const MB = 1024 * 1024;

describe('planChunks', () => {
  it('should fail on an empty file', () => {
    expect(() => planChunks(0)).toThrow();
  });

  it('should send a small file whole', () => {
    expect(planChunks(1)).toEqual({ chunkSize: 1, totalChunkCount: 1, ranges: [{ start: 0, end: 0 }] });
  });

  it('should send a file of up to 64 MB whole', () => {
    expect(planChunks(64 * MB).totalChunkCount).toBe(1);
  });

  it('should split a large file into floor(size / chunk) chunks, the last taking the remainder', () => {
    const size = 500 * MB + 3;
    const plan = planChunks(size);
    expect(plan.chunkSize).toBe(10 * MB);
    expect(plan.totalChunkCount).toBe(50);
    expect(plan.ranges[0]).toEqual({ start: 0, end: 10 * MB - 1 });
    expect(plan.ranges.at(-1)).toEqual({ start: 49 * 10 * MB, end: size - 1 });
    let next = 0;
    for (const r of plan.ranges) {
      expect(r.start).toBe(next);
      expect(r.end - r.start + 1).toBeGreaterThanOrEqual(5 * MB);
      expect(r.end - r.start + 1).toBeLessThanOrEqual(64 * MB);
      next = r.end + 1;
    }
    expect(next).toBe(size);
  });
});
