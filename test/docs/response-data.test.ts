// In test runs, a success answer whose `data` its route's `responseData` does not describe fails
// with 500 and an error naming the route, so a wrong declaration (and so a wrong OpenAPI document
// and typed client) cannot pass the suite unnoticed. Outside test runs nothing is checked.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient } from '../helpers/api.js';
import { DECLARED_PATH, MISDECLARED_PATH, MISDECLARED_RAW_PATH, UNDECLARED_PATH } from './misdeclared-routes.js';

// The real service, with the test-only route module added to its route table.
vi.mock('../../http/routes/index.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../http/routes/index.js')>();
  const { misdeclaredRoutes } = await import('./misdeclared-routes.js');
  return { routeModules: [...original.routeModules, misdeclaredRoutes] };
});

afterEach(() => vi.restoreAllMocks());

describe('in a test run (NODE_ENV=test)', () => {
  const booted = useTestServer();

  it('answers a route whose data matches its declaration', async () => {
    const res = await new ApiClient(booted.url).get(DECLARED_PATH);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: { count: 3 } });
    expect(typeof res.body.data.at).toBe('string');
  });

  it('answers 500 and names the route when the data does not match', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const res = await new ApiClient(booted.url).get(MISDECLARED_PATH);
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ success: false });
    const logged = errors.mock.calls.map((call) => call.join(' ')).join('\n');
    expect(logged).toContain(`GET ${MISDECLARED_PATH}`);
    expect(logged).toContain('count');
  });

  it("checks a raw answer against the route's responseBody the same way", async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const res = await new ApiClient(booted.url).get(MISDECLARED_RAW_PATH);
    expect(res.status).toBe(500);
    const logged = errors.mock.calls.map((call) => call.join(' ')).join('\n');
    expect(logged).toContain(`GET ${MISDECLARED_RAW_PATH}: the answer does not match the route's responseBody`);
  });

  it('leaves a route with no declaration alone', async () => {
    const res = await new ApiClient(booted.url).get(UNDECLARED_PATH);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ anything: true });
  });
});

describe('the OpenAPI document of the service', () => {
  const booted = useTestServer();

  it('declares the body of every success answer (none is the bare envelope, whose data is unknown)', async () => {
    const doc = (await new ApiClient(booted.url).get('/api/v1/openapi.json')).body;
    const undeclared: string[] = [];
    for (const [p, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (op.tags?.includes('test-only')) continue;
        for (const [status, answer] of Object.entries<any>(op.responses)) {
          const schema = answer.content?.['application/json']?.schema;
          if (status.startsWith('2') && schema?.$ref === '#/components/schemas/SuccessEnvelope') undeclared.push(`${method.toUpperCase()} ${p}`);
        }
      }
    }
    // Each one named here needs `responseData` (or `responseBody`, or `successStatus: 204`).
    expect(undeclared).toEqual([]);
  });
});

describe('outside test runs (NODE_ENV=development)', () => {
  const booted = useTestServer({ NODE_ENV: 'development' });

  it('sends the answer unchecked', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const res = await new ApiClient(booted.url).get(MISDECLARED_PATH);
    expect(res.status).toBe(200);
    expect(res.body.data.count).toBe('three');
    expect((await new ApiClient(booted.url).get(MISDECLARED_RAW_PATH)).body).toEqual({ data: { total: '12' } });
    expect(errors).not.toHaveBeenCalled();
  });
});
