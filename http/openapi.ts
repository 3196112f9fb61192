// GET /api/v1/openapi.json: an OpenAPI 3.1 document derived from the route table (the same
// declarations the server runs), so it cannot drift from the code. Schemas come from zod 4's own
// JSON Schema output (draft 2020-12, which OpenAPI 3.1 uses as is). Built once, on first request
// (PUBLIC_BASE_URL may only be known after listen), then served from memory.
import { STATUS_CODES } from 'node:http';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { z } from 'zod';
import type { AppContext } from '../src/context.js';
import type { AnyRoute } from './route.js';
import type { OpenExchange } from './server.js';
import { RATE_LIMITS } from './rate-limit.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';

type JsonSchema = Record<string, unknown>;

/** zod → JSON Schema; anything zod cannot express becomes "any" rather than failing the document. */
function jsonSchema(schema: z.ZodType | undefined, io: 'input' | 'output'): JsonSchema {
  if (!schema) return {};
  try {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', cycles: 'throw' }) as JsonSchema;
    return rest;
  } catch {
    return {};
  }
}

/** `/users/:userId/follow` → `/users/{userId}/follow`. */
const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const pathParamNames = (path: string): string[] => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);

const operationId = (route: AnyRoute): string => {
  const words = `${route.method.toLowerCase()} ${route.path}`
    .replace(/:([A-Za-z0-9_]+)/g, 'by $1')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w && w !== 'api' && !/^v\d+$/.test(w));
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
};

const errorResponse = (status: number) => ({
  description: STATUS_CODES[status] ?? 'Error',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

/** Statuses the facade itself produces for a route, beside those the route documents. */
function impliedErrorStatuses(route: AnyRoute): number[] {
  const statuses: number[] = [500];
  if (route.body || route.query || route.params || route.headers || route.multipart) statuses.push(400);
  if (route.auth !== 'public' || route.permission) statuses.push(401);
  if (route.permission) statuses.push(403);
  if (route.body || route.multipart) statuses.push(413, 415);
  if (!route.skipRateLimit) statuses.push(429);
  return statuses;
}

function parameters(route: AnyRoute): unknown[] {
  const out: unknown[] = [];
  const paramSchema = jsonSchema(route.params, 'input') as { properties?: Record<string, JsonSchema> };
  for (const name of pathParamNames(route.path)) {
    out.push({ name, in: 'path', required: true, schema: paramSchema.properties?.[name] ?? { type: 'string' } });
  }
  const query = jsonSchema(route.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  for (const [name, schema] of Object.entries(query.properties ?? {})) {
    const { description, ...rest } = schema as { description?: string };
    out.push({ name, in: 'query', required: query.required?.includes(name) ?? false, schema: rest, ...(description ? { description } : {}) });
  }
  if (route.headers) {
    const headers = jsonSchema(route.headers, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, schema] of Object.entries(headers.properties ?? {})) {
      out.push({ name, in: 'header', required: headers.required?.includes(name) ?? false, schema });
    }
  }
  return out;
}

function requestBody(route: AnyRoute): unknown | undefined {
  if (route.multipart) {
    const files = Object.fromEntries(
      route.multipart.fileFields.map((f) => [
        f,
        route.multipart!.maxFiles > 1
          ? { type: 'array', maxItems: route.multipart!.maxFiles, items: { type: 'string', contentMediaType: 'application/octet-stream' } }
          : { type: 'string', contentMediaType: 'application/octet-stream' },
      ]),
    );
    return {
      required: true,
      description: `Files of at most ${route.multipart.maxFileBytes} bytes each, at most ${route.multipart.maxFiles}`,
      content: { 'multipart/form-data': { schema: { type: 'object', properties: files, additionalProperties: { type: 'string' } } } },
    };
  }
  if (!route.body) return undefined;
  const schema = jsonSchema(route.body, 'input');
  const optional = route.body.safeParse(undefined).success;
  return { required: !optional, content: { 'application/json': { schema } } };
}

function successResponse(route: AnyRoute): [string, unknown] {
  const status = route.successStatus ?? 200;
  const headers = route.skipRateLimit ? undefined : RATE_LIMIT_HEADERS;
  if (status === 204) return ['204', { description: 'No content', ...(headers ? { headers } : {}) }];
  // The probes answer `{status}` without the envelope (CONTRACT §1).
  if (route.tag === 'health') {
    const probe = { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } };
    return [String(status), { description: STATUS_CODES[status] ?? 'Success', content: { 'application/json': { schema: probe } } }];
  }
  const schema = route.responseData
    ? {
        type: 'object',
        required: ['success', 'message', 'data'],
        properties: { success: { const: true }, message: { type: 'string' }, data: jsonSchema(route.responseData, 'output') },
      }
    : { $ref: '#/components/schemas/SuccessEnvelope' };
  return [String(status), { description: STATUS_CODES[status] ?? 'Success', ...(headers ? { headers } : {}), content: { 'application/json': { schema } } }];
}

function operation(route: AnyRoute): Record<string, unknown> {
  const security =
    route.auth === 'public' ? [] : route.auth === 'optional' ? [{}, { bearerAuth: [] }] : [{ bearerAuth: [] }];
  const statuses = [...new Set([...(route.errorStatuses ?? []), ...impliedErrorStatuses(route)])].sort((a, b) => a - b);
  const [successStatus, success] = successResponse(route);
  const body = requestBody(route);
  const params = parameters(route);
  return {
    operationId: operationId(route),
    summary: route.summary,
    tags: [route.tag],
    security,
    'x-auth': route.auth,
    'x-permission': route.permission ?? null,
    'x-rate-limits': route.skipRateLimit ? [] : ['general', ...(route.rateLimits ?? [])],
    ...(params.length ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: {
      [successStatus]: success,
      ...Object.fromEntries(statuses.map((s) => [String(s), errorResponse(s)])),
    },
  };
}

function buildOpenApiDocument(routes: AnyRoute[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const sorted = [...routes].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  for (const route of sorted) {
    const p = openApiPath(route.path);
    (paths[p] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  paths[OPENAPI_PATH] = {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      tags: ['meta'],
      security: [],
      'x-auth': 'public',
      'x-permission': null,
      responses: { '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  };
  const tags = [...new Set([...routes.map((r) => r.tag), 'meta'])].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Real-estate video content service',
      version: '1.0.0',
      description:
        'Accounts, roles and permissions, property video content, comments, follows, chat, file processing, ' +
        'social publishing, settings, statistics and promotion campaigns. Every error body is the ErrorEnvelope; ' +
        '`x-permission` names the permission an operation needs (403 without it). Rate limits per minute: ' +
        Object.entries(RATE_LIMITS).map(([name, l]) => `${name} ${l.points} per ${l.per}`).join(', ') +
        ' (multiplied by RATE_LIMIT_SCALE).',
    },
    servers: [{ url: serverUrl }],
    tags,
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'AccessToken from POST /auth/api/v1/login' },
      },
      headers: {
        'X-RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: 'Unix time (seconds) when the window resets', schema: { type: 'integer' } },
      },
      schemas: {
        SuccessEnvelope: {
          type: 'object',
          required: ['success', 'message', 'data'],
          properties: { success: { const: true }, message: { type: 'string' }, data: {} },
        },
        ErrorEnvelope: {
          type: 'object',
          required: ['success', 'error_code', 'message', 'timestamp'],
          properties: {
            success: { const: false },
            error_code: { type: 'string', pattern: '^[a-z_]+\\.error\\.[a-z_]+$', examples: ['validation.error.invalid_body'] },
            message: { type: 'string' },
            details: {
              type: 'object',
              required: ['field', 'constraint'],
              properties: { field: { type: 'string' }, constraint: { type: 'string' } },
            },
            timestamp: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
  };
}

export function registerOpenApiRoute(uws: TemplatedApp, app: AppContext, routes: AnyRoute[], openExchange: OpenExchange): void {
  let cached: string | null = null;
  uws.get(OPENAPI_PATH, (res: HttpResponse, req: HttpRequest) => {
    const exchange = openExchange(res, req);
    try {
      cached ??= JSON.stringify(buildOpenApiDocument(routes, app.config.publicBaseUrl));
    } catch (err) {
      exchange.sendError(err);
      return;
    }
    exchange.send(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=300' }, cached);
  });
}
