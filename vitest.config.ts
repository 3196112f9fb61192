import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // uWebSockets.js is a native addon: run test files in child processes, not worker threads.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 90_000,
    teardownTimeout: 30_000,
    reporters: ['default'],
  },
});
