// The served OpenAPI document passes Redocly's `recommended` rules with no error and no warning,
// and every request body has an example that the route's own schema accepts.
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient } from '../helpers/api.js';

const run = promisify(execFile);
const booted = useTestServer();

let doc: any;
let docFile: string;
beforeAll(async () => {
  const res = await new ApiClient(booted.url).get('/api/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = JSON.parse(res.text);
  const dir = path.resolve('.tmp/docs');
  fs.mkdirSync(dir, { recursive: true });
  docFile = path.join(dir, `openapi-${process.pid}.json`);
  fs.writeFileSync(docFile, res.text);
});

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

describe('OpenAPI document under Redocly lint (recommended)', () => {
  it('has 0 errors and 0 warnings', { timeout: 120_000 }, async () => {
    const bin = path.resolve('node_modules/.bin/redocly');
    // No redocly.yaml in the project: the built-in `recommended` ruleset applies.
    const { stdout } = await run(bin, ['lint', docFile, '--format=json', '--extends=recommended'], {
      cwd: path.dirname(docFile),
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: LintProblem[] };
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    fs.rmSync(docFile, { force: true });
  });

  it('gives every JSON request body an example that the route itself accepts', () => {
    const routes = booted.current.service.http.router.routes();
    const failures: string[] = [];
    for (const route of routes) {
      if (!route.body) continue;
      const op = doc.paths[route.path.replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()];
      const media = op.requestBody.content['application/json'];
      if (media.example === undefined) {
        failures.push(`${route.method} ${route.path}: no example (give the route an \`example\`)`);
        continue;
      }
      const parsed = route.body.safeParse(media.example);
      if (!parsed.success)
        failures.push(
          `${route.method} ${route.path}: ${JSON.stringify(media.example)} → ${parsed.error.issues.map((i: any) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
    }
    expect(failures).toEqual([]);
  });

  it('describes every tag and gives every operation a 4xx answer in the error envelope', () => {
    const used = new Set(Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).flatMap((op) => op.tags)));
    for (const tag of used) expect(doc.tags.find((t: any) => t.name === tag)?.description, tag).toBeTruthy();
    for (const [p, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const clientErrors = Object.keys(op.responses).filter((s) => /^4(\d\d|XX)$/.test(s));
        expect(clientErrors.length, `${method} ${p}`).toBeGreaterThan(0);
        for (const s of clientErrors) expect(op.responses[s].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorEnvelope');
      }
    }
  });
});
