// A database that cannot be reached is an outage, answered 503 `service.error.unavailable` with
// Retry-After (SPEC §7), not a 500; once it is back the next request succeeds. The test runs its
// own PostgreSQL server (initdb into a temporary directory; as the `postgres` user when run as
// root, since PostgreSQL refuses root), stops it under a running node and starts it again.
// Skipped where PostgreSQL's server binaries are not installed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { freePort } from '../helpers/child-process.js';

const pgBin = (() => {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : null;
})();
const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary, as `postgres` when this process is root. */
function pgCommand(binary: string, args: string[]): [string, string[]] {
  const full = path.join(pgBin!, binary);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', full, ...args]] : [full, args];
}

async function waitForPort(port: number, up: boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.end(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (open === up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`port ${port} did not become ${up ? 'open' : 'closed'}`);
}

describe.skipIf(!pgBin)('database outage', () => {
  let dataDir: string;
  let port: number;
  let server: TestServer;
  let user: TestUser;

  function pgCtl(args: string[]) {
    const [cmd, full] = pgCommand('pg_ctl', ['-D', dataDir, ...args]);
    const result = spawnSync(cmd, full, { stdio: 'ignore', timeout: 60_000 });
    if (result.status !== 0) throw new Error(`pg_ctl ${args[0]} failed`);
  }

  async function startPostgres() {
    pgCtl(['-w', '-o', `-p ${port} -c listen_addresses=127.0.0.1 -k ${dataDir} -c fsync=off`, '-l', path.join(dataDir, 'log'), 'start']);
    await waitForPort(port, true);
  }

  async function stopPostgres() {
    // "fast": ends the node's open sessions at once, as a crash or a failover would.
    pgCtl(['-w', '-m', 'fast', 'stop']);
    await waitForPort(port, false);
  }

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-pg-outage-'));
    if (asRoot) spawnSync('chown', ['postgres:postgres', dataDir]);
    const [cmd, args] = pgCommand('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    const init = spawnSync(cmd, args, { stdio: 'ignore' });
    if (init.status !== 0) throw new Error('initdb failed');
    port = await freePort();
    await startPostgres();
    // Only this node's database is stopped, whatever the suite's mode.
    server = await bootServer({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres` });
    user = await registerAndLogin(server);
  }, 120_000);

  afterAll(async () => {
    await server?.close().catch(() => undefined);
    await stopPostgres().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('should answer 503 with Retry-After while the database is down, then recover', async () => {
    const api = new ApiClient(server.url, user.token);
    expect((await api.get('/auth/api/v1/user/me')).status).toBe(200);
    await server.service.services.listingIndex.view(); // loaded

    await stopPostgres();
    // A node that cannot hear the other nodes through the database (revocations travel there)
    // trusts none of its caches (docs/read-model.md): even the caller's own profile is 503...
    expectErrorEnvelope(await api.get('/auth/api/v1/user/me'), 503, 'service.error.unavailable');
    // ...and so is everything else.
    const down = await api.get('/sns/api/v1/notifications');
    expectErrorEnvelope(down, 503, 'service.error.unavailable');
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
    // Listings are the listing index's, in memory: answered as they were before the outage.
    const listing = await new ApiClient(server.url).get('/content/api/v1/all');
    expect(listing.status, listing.text).toBe(200);
    // Public routes that read the database.
    const loginDown = await new ApiClient(server.url).post('/auth/api/v1/login', { phone_number: user.phone, password: user.password });
    expectErrorEnvelope(loginDown, 503, 'service.error.unavailable');
    // Liveness stays up; readiness says not ready.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);

    await startPostgres();
    let recovered = 0;
    for (let i = 0; i < 50 && recovered !== 200; i++) {
      recovered = (await api.get('/sns/api/v1/notifications')).status;
      if (recovered !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(recovered).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });
});
