import { defineConfig } from 'vitest/config';

// Test files that replace a module of the service (vi.mock) need their own module graph; every
// other file shares its worker's, which saves loading the service's modules anew for each file
// (most of a file's start-up). A service stopped in a shared worker leaves nothing behind
// (http/releasable-app.ts, realtime/server.ts), so the files run one after another in it.
const OWN_MODULES = ['test/docs/response-data.test.ts'];

export default defineConfig({
  test: {
    // uWebSockets.js is a native addon: run test files in child processes, not worker threads.
    pool: 'forks',
    maxWorkers: 2,
    // A guard against a hung test, not a measure: a slow or busy machine takes twice the usual time.
    testTimeout: 90_000,
    hookTimeout: 90_000,
    teardownTimeout: 30_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: OWN_MODULES, globalSetup: ['test/global-setup.ts'], isolate: false },
      },
      {
        extends: true,
        test: { name: 'own-modules', include: OWN_MODULES, globalSetup: ['test/global-setup.ts'], isolate: true },
      },
    ],
  },
});
