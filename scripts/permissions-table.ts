// Prints the README's endpoint table (method, path, auth, permission, rate limits) from the route
// table the server runs, and the seeded roles' permissions from the catalogue, so the
// documentation cannot drift from the code.
//   npx tsx scripts/permissions-table.ts            print
//   npx tsx scripts/permissions-table.ts --readme   also replace the table in README.md
// Boots one embedded node in a temporary directory (route modules build their services from a
// live context), reads its routes, and stops it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/shared/logger.js';
import { startService } from '../service.js';
import { OPENAPI_PATH } from '../http/openapi.js';
import { PERMISSIONS, SEEDED_ROLES } from '../src/authorization/catalogue.js';

const START = '<!-- permissions-table:start -->';
const END = '<!-- permissions-table:end -->';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-routes-'));
try {
  const config = loadConfig({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    SCHEDULER_ENABLED: 'false',
    VIDEO_WORKERS: '0',
  });
  const service = await startService(config, createLogger('silent'));
  const routes = service.http.router.routes();
  await service.close();

  const authLabel = { public: 'public', user: 'bearer', optional: 'optional bearer' } as const;
  const rows = routes
    .map((r) => ({
      method: r.method,
      path: r.path.replace(/:(\w+)/g, '{$1}'),
      auth: authLabel[r.auth],
      permission: r.permission ? `\`${r.permission}\`` : '—',
      limits: r.skipRateLimit ? '—' : ['general', ...(r.rateLimits ?? [])].join(', '),
    }))
    .concat([{ method: 'GET', path: OPENAPI_PATH, auth: 'public', permission: '—', limits: '—' }])
    .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));

  const roleNames = Object.keys(SEEDED_ROLES);
  const lines = [
    '| Method | Path | Auth | Permission | Rate limits |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.method} | \`${r.path}\` | ${r.auth} | ${r.permission} | ${r.limits} |`),
    '',
    `| Permission | Meaning | ${roleNames.join(' | ')} |`,
    `|---|---|${roleNames.map(() => ':-:').join('|')}|`,
    ...Object.entries(PERMISSIONS).map(
      ([name, meaning]) =>
        `| \`${name}\` | ${meaning} | ${roleNames.map((role) => ((SEEDED_ROLES[role].permissions as string[]).includes(name) ? '✓' : '')).join(' | ')} |`,
    ),
  ];
  const table = lines.join('\n') + '\n';
  process.stdout.write(table);
  if (process.argv.includes('--readme')) {
    const readmePath = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'README.md');
    const readme = fs.readFileSync(readmePath, 'utf8');
    const start = readme.indexOf(START);
    const end = readme.indexOf(END);
    if (start < 0 || end < start) throw new Error(`README.md lacks the ${START} … ${END} markers`);
    fs.writeFileSync(readmePath, `${readme.slice(0, start + START.length)}\n${table}${readme.slice(end)}`);
  }
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
