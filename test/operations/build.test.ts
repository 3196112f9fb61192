// The production start: `npm run build` compiles the service to dist/ with everything it reads at
// run time, `node dist/main.js` serves (embedded mode) and stops on SIGTERM with exit 0, and the
// prestart check rebuilds only when the sources changed. Built into a private folder under .tmp/
// (inside the project, so node_modules resolve) to leave dist/ alone.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpChildren, freshDataDir, listeningPort, root, startChild } from '../helpers/child-process.js';
import { build, isStale, sourceHash } from '../../scripts/build.mjs';

const outDir = path.join(root, '.tmp', `build-test-${randomBytes(4).toString('hex')}`, 'dist');

afterAll(() => {
  cleanUpChildren();
  fs.rmSync(path.dirname(outDir), { recursive: true, force: true });
});

describe('production build', () => {
  it('builds dist/ with the files read at run time, and knows when it is stale', () => {
    expect(isStale(outDir)).toBe(true);
    const before = sourceHash();
    build(outDir);
    const after = sourceHash();
    for (const file of ['main.js', 'service.js', 'src/db/migrate.js', 'src/targeting/vietnam-locations.json', 'src/media/bmp-decode-worker.mjs']) {
      expect(fs.existsSync(path.join(outDir, file)), file).toBe(true);
    }
    const migrations = fs.readdirSync(path.join(root, 'src/db/migrations')).filter((f) => f.endsWith('.sql'));
    expect(fs.readdirSync(path.join(outDir, 'src/db/migrations')).sort()).toEqual(migrations.sort());
    // No TypeScript, tests or benches in the build.
    expect(fs.existsSync(path.join(outDir, 'test'))).toBe(false);
    expect(fs.existsSync(path.join(outDir, 'bench'))).toBe(false);
    // The stamp is the hash of the sources the build started from; the build is fresh unless a
    // source changed meanwhile (then it is stale, and the next start rebuilds).
    const stamp = path.join(outDir, '.build-stamp');
    expect(fs.readFileSync(stamp, 'utf8').trim()).toBe(before);
    if (before === after) expect(isStale(outDir)).toBe(false);
    // A build from other sources (its stamp differs) is stale.
    const kept = fs.readFileSync(stamp, 'utf8');
    fs.writeFileSync(stamp, 'built-from-other-sources\n');
    expect(isStale(outDir)).toBe(true);
    fs.writeFileSync(stamp, kept);
  }, 300_000);

  it('starts with node dist/main.js, answers /readyz, and stops on SIGTERM with exit 0', async () => {
    const dataDir = freshDataDir();
    const admin = { phone_number: '+84909999998', password: 'admin-password-2' };
    const node = startChild([path.join(outDir, 'main.js')], { DATA_DIR: dataDir, ADMIN_PHONE_NUMBER: admin.phone_number, ADMIN_PASSWORD: admin.password });
    const port = await listeningPort(node);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', transport: 'uws-native', media_storage: expect.stringMatching(/^local:/) });
    // The migrations ran from dist/ (the administrator was stored), and the JSON data loads.
    const login = await fetch(`http://127.0.0.1:${port}/auth/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(admin),
    });
    expect(login.status).toBe(200);
    const token = ((await login.json()) as { data: { AccessToken: string } }).data.AccessToken;
    const locations = await fetch(`http://127.0.0.1:${port}/api/v1/targeting/locations?query=ha%20noi`, { headers: { authorization: `Bearer ${token}` } });
    expect(locations.status).toBe(200);
    expect(JSON.stringify(await locations.json())).toMatch(/H\u00e0 N\u1ed9i|Hà Nội/);
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(metrics.status).toBe(200);
    node.child.kill('SIGTERM');
    expect(await node.exited).toBe(0);
    expect(node.stdout()).toContain('service stopped');
    expect(fs.existsSync(path.join(dataDir, 'service.lock'))).toBe(false);
  }, 120_000);
});
