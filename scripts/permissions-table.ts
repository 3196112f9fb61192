// Prints the README's endpoint table (method, path, auth, permission, rate limits) from the route
// table the server runs, so the documentation cannot drift from the code.
//   npx tsx scripts/permissions-table.ts
// Boots one embedded node in a temporary directory (route modules build their services from a
// live context), reads its routes, and stops it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/shared/logger.js';
import { startService } from '../service.js';
import { OPENAPI_PATH } from '../http/openapi.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-routes-'));
try {
  const config = loadConfig({
    DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', SCHEDULER_ENABLED: 'false', VIDEO_WORKERS: '0',
  });
  const service = await startService(config, createLogger('silent'));
  const routes = service.http.router.routes();
  await service.close();

  const authLabel = { public: 'public', user: 'bearer', optional: 'optional bearer' } as const;
  const rows = routes
    .map((r) => ({
      method: r.method,
      path: r.path.replace(/:(\w+)/g, '{$1}'),
      auth: authLabel[r.auth as keyof typeof authLabel],
      permission: r.permission ? `\`${r.permission}\`` : '—',
      limits: r.skipRateLimit ? '—' : ['general', ...(r.rateLimits ?? [])].join(', '),
    }))
    .concat([{ method: 'GET', path: OPENAPI_PATH, auth: 'public', permission: '—', limits: '—' }])
    .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));

  const lines = [
    '| Method | Path | Auth | Permission | Rate limits |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.method} | \`${r.path}\` | ${r.auth} | ${r.permission} | ${r.limits} |`),
  ];
  process.stdout.write(lines.join('\n') + '\n');
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
