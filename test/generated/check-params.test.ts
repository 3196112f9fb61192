// Check-params tests generated from the route table (every route the http/routes/* modules
// declare, as the running server holds them), so a route is covered the day it is declared:
// - 401 without a token, for every route that needs a signed-in caller (auth: 'user');
// - 403 for a caller whose role holds no permission, for every route that declares one;
// - for every JSON body schema: a body valid by the schema (the route's example, else the one the
//   OpenAPI document derives from the schema, checked valid here) is taken as the base; then each
//   required field missing is a 400 naming that field, and each top-level field of a single JSON
//   type sent with another type is a 400 naming that field.
// One shared server; the counts are printed. Multipart routes get the 401/403 checks only.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AnyRoute } from '../../http/route.js';
import { exampleFor } from '../../http/openapi-examples.js';
import { useTestServer } from '../helpers/fixture.js';
import { login, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';

const booted = useTestServer({ RATE_LIMIT_SCALE: '1000' });

type JsonSchema = Record<string, unknown> & { type?: unknown; properties?: Record<string, JsonSchema>; required?: string[] };

let routes: AnyRoute[];
let admin: TestUser;
let powerless: TestUser;

beforeAll(async () => {
  const server = booted.current;
  routes = server.service.http.router.routes();
  admin = await loginAdmin(server);
  // A caller whose role holds no permission at all.
  const user = await registerAndLogin(server);
  await server.service.app.database.rows(
    sql`insert into roles (id, name, description) values (gen_random_uuid(), 'check_params_none', 'no permission') on conflict (name) do nothing`,
  );
  const assigned = await admin.api.put(`/authorization/api/v1/users/${user.userId}/roles`, { role_names: ['check_params_none'] });
  expect(assigned.status, assigned.text).toBe(200);
  powerless = await login(server, user.phone, user.password);
});

/** The route's path with every `:param` filled (a fresh uuid: the checks here come before any lookup). */
const pathOf = (route: AnyRoute) => route.path.replace(/:\w+/g, () => randomUUID());

async function send(route: AnyRoute, token: string | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${booted.url}${pathOf(route)}`, { method: route.method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json: { error_code?: string; details?: { field?: string } } = {};
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON: the assertions below say so */
  }
  return { status: res.status, json, label: `${route.method} ${route.path} → ${res.status} ${text.slice(0, 200)}` };
}

const label = (route: AnyRoute) => `${route.method} ${route.path}`;

/** A value of another JSON type than `type`. */
function wrongTypeFor(type: string): unknown {
  switch (type) {
    case 'string':
      return 12345;
    case 'number':
    case 'integer':
      return 'not-a-number';
    case 'boolean':
      return 'not-a-boolean';
    case 'array':
      return 'not-an-array';
    case 'object':
      return 'not-an-object';
    default:
      return undefined;
  }
}

/** The body schema as JSON Schema, a valid base body, or null when none could be made. */
function bodyBase(route: AnyRoute): { schema: JsonSchema; base: Record<string, unknown> } | null {
  if (!route.body) return null;
  const schema = z.toJSONSchema(route.body, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  if (schema.type !== 'object' || !schema.properties) return null;
  const base = route.example !== undefined ? route.example : exampleFor(schema);
  if (typeof base !== 'object' || base === null || Array.isArray(base)) return null;
  if (!route.body.safeParse(base).success) return null;
  return { schema, base: base as Record<string, unknown> };
}

describe('check-params, generated from the route table', () => {
  it('answers 401 without a token on every route that needs a signed-in caller', async () => {
    const needing = routes.filter((r) => r.auth === 'user');
    expect(needing.length).toBeGreaterThan(30);
    for (const route of needing) {
      const res = await send(route, null);
      expect(res.status, res.label).toBe(401);
    }
    console.log(`check-params: 401 without a token on ${needing.length} of ${routes.length} routes`);
  });

  it('answers 403 to a caller without the permission on every route that declares one', async () => {
    const guarded = routes.filter((r) => r.auth === 'user' && r.permission);
    expect(guarded.length).toBeGreaterThan(20);
    for (const route of guarded) {
      // No body: the content type and size checks come before the pipeline; the permission is checked before the body is read.
      const res = await send(route, powerless.token);
      expect(res.status, res.label).toBe(403);
    }
    console.log(`check-params: 403 without the permission on ${guarded.length} routes`);
  });

  it('answers 400 naming the field for each required body field missing and each field of the wrong type', async () => {
    const withBody = routes.filter((r) => r.body && !r.multipart);
    let missingChecks = 0;
    let typeChecks = 0;
    const covered: string[] = [];
    const noBase: string[] = [];
    for (const route of withBody) {
      const made = bodyBase(route);
      if (!made) {
        noBase.push(label(route));
        continue;
      }
      covered.push(label(route));
      const { schema, base } = made;
      for (const field of schema.required ?? []) {
        const { [field]: _dropped, ...rest } = base;
        const res = await send(route, admin.token, rest);
        expect(res.status, `${field} missing: ${res.label}`).toBe(400);
        expect(res.json.error_code, res.label).toMatch(/^validation\.error\./);
        expect(res.json.details?.field?.split('.')[0], `${field} missing: ${res.label}`).toBe(field);
        missingChecks++;
      }
      for (const [field, property] of Object.entries(schema.properties ?? {})) {
        if (typeof property.type !== 'string') continue;
        const wrong = wrongTypeFor(property.type);
        if (wrong === undefined) continue;
        const res = await send(route, admin.token, { ...base, [field]: wrong });
        expect(res.status, `${field} as ${JSON.stringify(wrong)}: ${res.label}`).toBe(400);
        expect(res.json.details?.field?.split('.')[0], `${field} wrong type: ${res.label}`).toBe(field);
        typeChecks++;
      }
    }
    console.log(
      `check-params: body checks on ${covered.length} of ${withBody.length} routes with a JSON body (${missingChecks} missing-field, ${typeChecks} wrong-type)` +
        (noBase.length ? `; no schema-valid example body for: ${noBase.join(', ')}` : ''),
    );
    expect(covered.length).toBeGreaterThan(withBody.length / 2);
    expect(missingChecks).toBeGreaterThan(20);
    expect(typeChecks).toBeGreaterThan(20);
  });
});
