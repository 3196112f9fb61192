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
import { exampleFor } from './openapi-examples.js';
import { ASYNCAPI_PATH, DOCS_PATH, EVENTS_DOCS_PATH, OPENAPI_PATH } from './docs-paths.js';
import { METRICS_PATH } from './metrics-route.js';

export { OPENAPI_PATH };

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

const errorResponse = (status: number | '4XX') => ({
  description: status === '4XX' ? CLIENT_ERROR_DESCRIPTION : (STATUS_CODES[status] ?? 'Error'),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});

/**
 * For operations with no client error of their own (probes, documents): what the front answers
 * any request it cannot take, so every operation still says what a 4xx looks like.
 */
const CLIENT_ERROR_DESCRIPTION = 'A request the service cannot take before this operation runs (e.g. 400 `request.error.invalid_path`); the ErrorEnvelope.';

/** What each tag (service root) is about; a tag not listed here gets a generic line. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  health: 'Liveness and readiness probes for load balancers and orchestrators (no envelope, never rate limited).',
  auth: 'Accounts: registration with one-time codes, login, tokens and sessions, passwords, profiles and follows.',
  authorization: 'Roles and permissions: which permission each operation needs (`x-permission`) and who holds it.',
  content: 'Property video content: items, listings, media, feeds, reactions, search and saved searches.',
  files: 'File processing: uploads of images and videos, and their processing state.',
  sns: 'Social features: comments with replies and reactions, chat rooms and messages.',
  chat: 'Chat: rooms, messages (edit, delete, reactions), read state and presence. The same messages arrive live on the `/chat` Socket.IO namespace (see /docs/events).',
  notifications: 'Notifications: the stored inbox of everything pushed on `/notifications`, read state, and Web Push subscriptions.',
  settings: "The caller's settings tree, two-factor authentication, sessions and statistics.",
  publishing: 'Linking TikTok and YouTube accounts and publishing content to them.',
  campaigns: 'Promotion campaigns: estimates, boosting content, targeting, balance and payments.',
  moderation: 'Moderation (CONTRACT §21): the audit log of moderation and role actions, reports and the decisions on them; needs `moderate:content`.',
  meta: 'The documents that describe this API: OpenAPI (REST), AsyncAPI (Socket.IO events) and their HTML pages.',
};

const tagDescription = (tag: string): string => TAG_DESCRIPTIONS[tag] ?? `Operations of the ${tag} area.`;

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

// A stored route's schemas have their types erased (AnyRoute): each is a zod schema all the same.
/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access */
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
  // The route's own example when it gives one, else one made from the schema.
  const example = route.example !== undefined ? route.example : exampleFor(schema);
  return { required: !optional, content: { 'application/json': { schema, ...(example !== undefined ? { example } : {}) } } };
}
/* eslint-enable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access */

function successResponse(route: AnyRoute): [string, unknown] {
  const status = route.successStatus ?? 200;
  const headers = route.skipRateLimit ? undefined : RATE_LIMIT_HEADERS;
  if (status === 204) return ['204', { description: 'No content', ...(headers ? { headers } : {}) }];
  // The probes answer `{status}` without the envelope (CONTRACT §1).
  if (route.tag === 'health') {
    const probe = { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } };
    return [String(status), { description: STATUS_CODES[status] ?? 'Success', content: { 'application/json': { schema: probe } } }];
  }
  const schema = route.responseBody
    ? jsonSchema(route.responseBody, 'output')
    : route.responseData
      ? // The envelope, with its `data` made precise.
        {
          allOf: [{ $ref: '#/components/schemas/SuccessEnvelope' }],
          type: 'object',
          required: ['data'],
          properties: { data: jsonSchema(route.responseData, 'output') },
        }
      : { $ref: '#/components/schemas/SuccessEnvelope' };
  return [String(status), { description: STATUS_CODES[status] ?? 'Success', ...(headers ? { headers } : {}), content: { 'application/json': { schema } } }];
}

function operation(route: AnyRoute): Record<string, unknown> {
  const security = route.auth === 'public' ? [] : route.auth === 'optional' ? [{}, { bearerAuth: [] }] : [{ bearerAuth: [] }];
  const statuses: (number | '4XX')[] = [...new Set([...(route.errorStatuses ?? []), ...impliedErrorStatuses(route)])].sort((a, b) => a - b);
  if (!statuses.some((s) => typeof s === 'number' && s >= 400 && s < 500)) statuses.unshift('4XX');
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

/**
 * The deployment's address when it is a public one, and always the origin the document was
 * fetched from (relative), which is what the /docs page and local clients use.
 */
function servers(publicBaseUrl: string): { url: string; description: string }[] {
  const local = /^https?:\/\/(localhost|127\.|\[::1\])/i.test(publicBaseUrl);
  return [
    ...(local ? [] : [{ url: publicBaseUrl, description: 'This deployment (PUBLIC_BASE_URL)' }]),
    { url: '/', description: 'The origin that served this document' },
  ];
}

/** A GET operation of a raw route (documents and pages): public, not rate limited. */
function metaOperation(operationId: string, summary: string, contentType: string, description: string): Record<string, unknown> {
  return {
    operationId,
    summary,
    tags: ['meta'],
    security: [],
    'x-auth': 'public',
    'x-permission': null,
    'x-rate-limits': [],
    responses: {
      '200': { description, content: { [contentType]: { schema: contentType === 'text/html' ? { type: 'string' } : { type: 'object' } } } },
      '4XX': errorResponse('4XX'),
    },
  };
}

function metaPaths(): Record<string, Record<string, unknown>> {
  return {
    [OPENAPI_PATH]: { get: metaOperation('getOpenApiDocument', 'This document', 'application/json', 'OpenAPI 3.1 document of the REST API') },
    [ASYNCAPI_PATH]: {
      get: metaOperation('getAsyncApiDocument', 'The Socket.IO event contract', 'application/json', 'AsyncAPI 3 document of every namespace and event'),
    },
    [DOCS_PATH]: { get: metaOperation('getApiReferencePage', 'REST reference page', 'text/html', 'HTML page rendering this document') },
    [EVENTS_DOCS_PATH]: {
      get: metaOperation('getEventReferencePage', 'Socket.IO event reference page', 'text/html', 'HTML page rendering the AsyncAPI document'),
    },
    [METRICS_PATH]: { get: metricsOperation() },
  };
}

/** GET /metrics (http/metrics-route.ts, CONTRACT §20): Prometheus text, by token or from loopback. */
function metricsOperation(): Record<string, unknown> {
  const operation = metaOperation('getMetrics', 'Prometheus metrics of this node', 'text/plain', 'Prometheus text format 0.0.4 (the list: docs/operations.md)');
  return {
    ...operation,
    tags: ['health'],
    description:
      'With METRICS_TOKEN set the request needs `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise); unset, only loopback ' +
      'clients are answered (403 to others, and to requests relayed by a proxy). Never rate limited.',
    responses: {
      '200': { description: 'Prometheus text format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } },
      '401': errorResponse(401),
      '403': errorResponse(403),
    },
  };
}

export function buildOpenApiDocument(routes: AnyRoute[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const sorted = [...routes].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  for (const route of sorted) {
    const p = openApiPath(route.path);
    (paths[p] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  Object.assign(paths, metaPaths());
  const tags = [...new Set([...routes.map((r) => r.tag), 'meta'])].map((name) => ({ name, description: tagDescription(name) }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Real-estate video content service',
      version: '1.0.0',
      description:
        'Accounts, roles and permissions, property video content, comments, follows, chat, file processing, ' +
        'social publishing, settings, statistics and promotion campaigns. Every error body is the ErrorEnvelope; ' +
        '`x-permission` names the permission an operation needs (403 without it). Rate limits per minute: ' +
        Object.entries(RATE_LIMITS)
          .map(([name, l]) => `${name} ${l.points} per ${l.per}`)
          .join(', ') +
        ' (multiplied by RATE_LIMIT_SCALE). Socket.IO events: ' +
        ASYNCAPI_PATH +
        ' (rendered at ' +
        EVENTS_DOCS_PATH +
        ').',
      // Not an open-source API: a custom SPDX reference says so.
      license: { name: 'Proprietary: all rights reserved; for the apps of the platform', identifier: 'LicenseRef-Proprietary' },
    },
    servers: servers(serverUrl),
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
    const exchange = openExchange(res, req, OPENAPI_PATH);
    try {
      cached ??= JSON.stringify(buildOpenApiDocument(routes, app.config.publicBaseUrl));
    } catch (err) {
      exchange.sendError(err);
      return;
    }
    exchange.send(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=300' }, cached);
  });
}
