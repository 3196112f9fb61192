// Test-only routes for response-data.test.ts: one answers what it declares, two answer a shape
// their `responseData` / `responseBody` do not describe (on purpose), one declares nothing.
import { z } from 'zod';
import { defineRoute, routeModule } from '../../http/route.js';

export const MISDECLARED_PATH = '/test-only/api/v1/misdeclared';
export const DECLARED_PATH = '/test-only/api/v1/declared';
export const UNDECLARED_PATH = '/test-only/api/v1/undeclared';
export const MISDECLARED_RAW_PATH = '/test-only/api/v1/misdeclared-raw';

const countData = z.object({ count: z.number().int(), at: z.string().describe('ISO time') });

export const misdeclaredRoutes = routeModule([], () => [
  defineRoute({
    method: 'GET',
    path: DECLARED_PATH,
    tag: 'test-only',
    auth: 'public',
    summary: 'Answers what it declares',
    responseData: countData,
    // A Date is sent as its ISO text, which is what the declaration (and the client) describe.
    handler: async () => ({ data: { count: 3, at: new Date() } }),
  }),
  defineRoute({
    method: 'GET',
    path: MISDECLARED_PATH,
    tag: 'test-only',
    auth: 'public',
    summary: 'Answers what it does not declare',
    responseData: countData,
    handler: async () => ({ data: { count: 'three', at: new Date() } }),
  }),
  defineRoute({
    method: 'GET',
    path: MISDECLARED_RAW_PATH,
    tag: 'test-only',
    auth: 'public',
    summary: 'Answers a raw body it does not declare',
    responseBody: z.object({ data: z.object({ total: z.number() }) }),
    handler: async () => ({ raw: { data: { total: '12' } } }),
  }),
  defineRoute({
    method: 'GET',
    path: UNDECLARED_PATH,
    tag: 'test-only',
    auth: 'public',
    summary: 'Declares no data',
    handler: async () => ({ data: { anything: true } }),
  }),
]);
