// GET /api/v1/openapi.json: an OpenAPI 3.1 document that lists every declared route.
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient } from '../helpers/api.js';

const booted = useTestServer();

let server: TestServer;
let doc: any;
beforeAll(async () => {
  server = booted.current;
  const res = await new ApiClient(server.url).get('/api/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = JSON.parse(res.text);
});

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with the bearer scheme and both envelopes', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBeTruthy();
    // A local PUBLIC_BASE_URL is not listed (Redocly's no-server-example.com); the serving origin always is.
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(doc.info.license.identifier).toBeTruthy();
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.ErrorEnvelope.required).toEqual(['success', 'error_code', 'message', 'timestamp']);
    expect(doc.components.schemas.ErrorEnvelope.properties.details.properties).toHaveProperty('constraint');
    expect(doc.components.schemas.SuccessEnvelope.properties).toHaveProperty('data');
  });

  it('lists every declared route, with {param} paths', () => {
    const routes = server.service.http.router.routes();
    expect(routes.length).toBeGreaterThan(5);
    for (const route of routes) {
      const p = route.path.replace(/:(\w+)/g, '{$1}');
      expect(doc.paths[p], `${route.method} ${route.path}`).toBeDefined();
      expect(doc.paths[p][route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    }
    expect(Object.keys(doc.paths).some((p) => p.includes(':'))).toBe(false);
    expect(doc.paths['/auth/api/v1/login'].post).toBeDefined();
  });

  it('describes a public operation: request body, success and error statuses', () => {
    const login = doc.paths['/auth/api/v1/login'].post;
    expect(login.security).toEqual([]);
    expect(login['x-permission']).toBeNull();
    expect(login.requestBody.content['application/json'].schema.properties).toHaveProperty('phone_number');
    expect(login.requestBody.content['application/json'].schema.required).toContain('password');
    expect(login.responses['200']).toBeDefined();
    for (const status of ['400', '429', '500']) {
      expect(login.responses[status].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorEnvelope');
    }
    expect(login.responses['200'].headers).toHaveProperty('X-RateLimit-Remaining');
  });

  it('describes a protected operation: bearer security, permission, 401 and 403', () => {
    const createRole = doc.paths['/authorization/api/v1/roles'].post;
    expect(createRole.security).toEqual([{ bearerAuth: [] }]);
    expect(createRole['x-permission']).toBe('create:role');
    expect(Object.keys(createRole.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '500']));
    const data = createRole.responses['201'].content['application/json'].schema.properties.data;
    expect(data.properties).toHaveProperty('permission_names');

    const listPermissions = doc.paths['/authorization/api/v1/permissions'].get;
    expect(listPermissions.parameters).toEqual([expect.objectContaining({ name: 'role_names', in: 'query', required: false })]);
  });

  it('gives path parameters for every {param}', () => {
    for (const [p, item] of Object.entries<any>(doc.paths)) {
      const names = [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const op of Object.values<any>(item)) {
        const declared = (op.parameters ?? []).filter((x: any) => x.in === 'path').map((x: any) => x.name);
        expect(declared.sort(), p).toEqual([...names].sort());
        expect(op.operationId, p).toMatch(/^[a-z][A-Za-z0-9]*$/);
      }
    }
    const ids = Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives the header parameters a route declares (SPEC §5.6 identity headers, x-language)', () => {
    const refresh = doc.paths['/auth/api/v1/refresh-token'].post;
    const headerNames = refresh.parameters.filter((p: any) => p.in === 'header').map((p: any) => [p.name, p.required]);
    expect(headerNames).toEqual(
      expect.arrayContaining([
        ['x-user-username', true],
        ['x-session-id', true],
      ]),
    );
    const feeds = doc.paths['/content/api/v1/feeds'].get;
    expect(feeds.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'x-language', in: 'header', required: false })]));
  });

  it('describes the probes without the envelope', () => {
    const schema = doc.paths['/healthz'].get.responses['200'].content['application/json'].schema;
    expect(schema.properties.status).toEqual({ const: 'ok' });
  });

  it('is served from memory the same way each time', async () => {
    const again = await new ApiClient(server.url).get('/api/v1/openapi.json');
    expect(again.body).toEqual(doc);
  });
});

describe('OpenAPI document: completeness for readers and tools', () => {
  it('describes every tag and lists the documents and pages themselves', () => {
    for (const tag of doc.tags) expect(tag.description, tag.name).toBeTruthy();
    for (const p of ['/api/v1/openapi.json', '/api/v1/asyncapi.json', '/docs', '/docs/events']) {
      expect(doc.paths[p].get.tags).toEqual(['meta']);
      expect(doc.paths[p].get.responses['4XX'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorEnvelope');
    }
  });

  it('makes request-body examples from the schemas, valid for them', () => {
    const login = doc.paths['/auth/api/v1/login'].post.requestBody.content['application/json'];
    expect(login.example).toMatchObject({ phone_number: expect.stringMatching(/^\+\d+$/), password: expect.any(String) });
    const send = doc.paths['/sns/api/v1/chat/messages'].post.requestBody.content['application/json'];
    expect(send.example.roomId).toMatch(/^[0-9a-f-]{36}$/);
    expect(send.example.attachments[0].url).toMatch(/^https:\/\//);
  });

  it('lists a public PUBLIC_BASE_URL as the first server', async () => {
    const { buildOpenApiDocument } = await import('../../http/openapi.js');
    const built = buildOpenApiDocument(server.service.http.router.routes(), 'https://api.example.vn') as any;
    expect(built.servers.map((s: any) => s.url)).toEqual(['https://api.example.vn', '/']);
  });
});
