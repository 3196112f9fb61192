// The deployment files are checked as far as a machine without a Docker daemon allows
// (scripts/check-deploy.sh: Compose's config validation of docker-compose.yml with and without the
// monitoring profile, promtool on deploy/prometheus.yml), and promtool lints a real /metrics
// scrape. .ci/run installs the validators; elsewhere the tests skip when they are missing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { root } from '../helpers/child-process.js';

const has = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const composeValidator = has('docker', ['compose', 'version']) || has('docker-compose', ['version']);
const promtool = has('promtool', ['--version']);
/** In CI the validators must be there (.ci/run installs them). */
const required = process.env.CI === 'true';

describe('deployment files', () => {
  it.skipIf(!required && !(composeValidator && promtool))(
    'validates docker-compose.yml and deploy/prometheus.yml',
    () => {
      const run = spawnSync('bash', [path.join(root, 'scripts/check-deploy.sh')], { cwd: root, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/docker-compose\.yml: valid/);
      expect(run.stdout).toMatch(/deploy\/prometheus\.yml: valid/);
    },
    60_000,
  );

  it.skipIf(!required && !composeValidator)(
    'would catch a broken compose file',
    () => {
      // The validator itself, on a copy with a misspelt key: the check is not a no-op.
      fs.mkdirSync(path.join(root, '.tmp'), { recursive: true });
      const dir = fs.mkdtempSync(path.join(root, '.tmp', 'compose-'));
      try {
        const broken = fs
          .readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')
          .replace(/^name: .*$/m, '')
          .replace('restart: unless-stopped', 'restrat: unless-stopped');
        fs.writeFileSync(path.join(dir, 'docker-compose.yml'), broken);
        fs.cpSync(path.join(root, 'deploy'), path.join(dir, 'deploy'), { recursive: true });
        const args = ['-f', path.join(dir, 'docker-compose.yml'), 'config', '-q'];
        const run = has('docker', ['compose', 'version'])
          ? spawnSync('docker', ['compose', ...args], { encoding: 'utf8' })
          : spawnSync('docker-compose', args, { encoding: 'utf8' });
        expect(run.status).not.toBe(0);
        expect(run.stderr).toMatch(/restrat/);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

describe('the /metrics exposition', () => {
  const booted = useTestServer();

  it.skipIf(!required && !promtool)('passes promtool check metrics (names, types, help, units)', async () => {
    await fetch(`${booted.url}/healthz`);
    const text = await (await fetch(`${booted.url}/metrics`)).text();
    const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    // prom-client's default process gauges nodejs_active_{handles,requests,resources}_total keep
    // their names (the ones its dashboards use) though promtool wants no _total on a gauge; every
    // other finding fails the test.
    const findings = `${lint.stdout}${lint.stderr}`.split('\n').filter((l) => l.trim() && !/^nodejs_active_\w+_total non-counter/.test(l));
    expect(findings).toEqual([]);
  });
});
