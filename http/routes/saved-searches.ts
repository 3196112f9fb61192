// Saved searches (CONTRACT §16) under {content_api} = /content/api/v1: create, list, delete, and
// the published items that match one. Rules in src/saved-searches/service.ts.
import { z } from 'zod';
import { defineRoute, routeModule } from '../route.js';
import { createSavedSearchBody, matchesQuery, savedSearchIdParams, savedSearchView } from '../../src/saved-searches/index.js';
import { listingItemSchema } from '../../src/content/index.js';

const base = '/content/api/v1/saved-searches';
const tag = 'saved-searches';

export const savedSearchRoutes = routeModule(['savedSearches'], (_app, services) => {
  const { savedSearches } = services;
  return [
    defineRoute({
      method: 'POST',
      path: base,
      tag,
      auth: 'user',
      summary: 'Save a search (the filters of GET /all, optionally a map area) and how to be told of new matches',
      body: createSavedSearchBody,
      successStatus: 201,
      errorStatuses: [400, 401, 409, 429, 500],
      responseData: savedSearchView,
      handler: async ({ caller, body }) => ({ status: 201, message: 'Saved search created', data: await savedSearches.create(caller, body) }),
    }),
    defineRoute({
      method: 'GET',
      path: base,
      tag,
      auth: 'user',
      summary: "The caller's saved searches, newest first (at most 50)",
      errorStatuses: [401, 429, 500],
      responseData: z.object({ items: z.array(savedSearchView) }),
      handler: async ({ caller }) => ({ message: 'Saved searches', data: await savedSearches.list(caller) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${base}/:id`,
      tag,
      auth: 'user',
      summary: "Delete one of the caller's saved searches (another user's id answers 404)",
      params: savedSearchIdParams,
      errorStatuses: [400, 401, 404, 429, 500],
      responseData: z.object({ id: z.string() }),
      handler: async ({ caller, params }) => {
        await savedSearches.remove(caller, params.id);
        return { message: 'Saved search deleted', data: { id: params.id } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/:id/matches`,
      tag,
      auth: 'user',
      summary: 'Published items matching a saved search, newest first (cursor pages)',
      params: savedSearchIdParams,
      query: matchesQuery,
      errorStatuses: [400, 401, 404, 429, 500],
      responseData: z.object({ items: z.array(listingItemSchema), next_cursor: z.string().nullable(), has_more: z.boolean() }),
      handler: async ({ caller, params, query }) => ({ message: 'Matches', data: await savedSearches.matches(caller, params.id, query) }),
    }),
  ];
});
