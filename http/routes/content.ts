// Property content (SPEC §4.3): {content_api} = /content/api/v1 for creation, listings and the
// feed; {api} = /api/v1 for detail, edit, delete and reactions of one item.
import { z } from 'zod';
import { defineRoute, routeModule } from '../route.js';
import {
  clustersQuery,
  completedQuery,
  contentIdParams,
  languageHeader,
  createContentBody,
  editContentBody,
  feedQuery,
  listAllQuery,
  completedItemSchema,
  feedItemSchema,
  listingItemSchema,
  contentDetailSchema,
  createdContentSchema,
} from '../../src/content/index.js';
import { sponsoredMarkSchema } from '../../src/campaigns/index.js';
import { addressKey } from '../address-key.js';

const base = '/content/api/v1';
const api = '/api/v1';
const tag = 'content';

const facetsSchema = z.object({
  amenities: z.record(z.string(), z.number().int()).optional(),
  apartment_type: z.record(z.string(), z.number().int()).optional(),
  project_status: z.record(z.string(), z.number().int()).optional(),
  price: z.array(z.object({ from: z.number().nullable(), to: z.number().nullable(), count: z.number().int() })).optional(),
});

export const contentRoutes = routeModule(['content', 'listings', 'feedPages'], (app, services) => {
  const { content, listings, feedPages } = services;
  return [
    defineRoute({
      method: 'POST',
      path: `${base}/content`,
      tag,
      auth: 'user',
      permission: 'create:content',
      rateLimits: ['content_create'],
      summary: 'Create a content item (full form with video, or upload-flow form); it starts as processing',
      body: createContentBody,
      responseData: createdContentSchema,
      successStatus: 201,
      errorStatuses: [400, 401, 403, 429, 500],
      handler: async ({ caller, body }) => ({ status: 201, message: 'Content created', data: await content.create(caller, body) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/all`,
      tag,
      auth: 'optional',
      summary: 'List content with search, filters, sorting and pages',
      query: listAllQuery,
      errorStatuses: [400, 401, 500, 503],
      responseData: z.object({
        item: z.array(listingItemSchema.extend({ sponsored: sponsoredMarkSchema })),
        hasMore: z.boolean(),
        total: z.number().int().describe('Matches: exact up to 10,000, above that an estimate within 10 %; see docs/search.md'),
        facets: facetsSchema.optional().describe('With `facets=`: counts per value over the matches of the other filters (CONTRACT §23)'),
      }),
      handler: async ({ optionalCaller, query, ip }) => ({
        message: 'Content list',
        data: await listings.listAll(optionalCaller, query, { userId: optionalCaller?.userId ?? null, address: addressKey(ip) }),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/completed`,
      tag,
      auth: 'optional',
      summary: 'Published content in the x-language language, optionally inside a map viewport',
      query: completedQuery,
      headers: languageHeader,
      errorStatuses: [400, 401, 500, 503],
      responseData: z.object({
        items: z.array(completedItemSchema),
        total: z.number().int(),
        page: z.number().int(),
        per_page: z.number().int(),
        total_pages: z.number().int(),
      }),
      handler: async ({ optionalCaller, query, headers, ip }) => ({
        message: 'Completed content',
        data: await listings.listCompleted(optionalCaller, query, headers['x-language'], { userId: optionalCaller?.userId ?? null, address: addressKey(ip) }),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/completed/clusters`,
      tag,
      auth: 'optional',
      summary: 'Map clusters of published content in a box at a zoom, with the search and filters of /all (CONTRACT §23)',
      query: clustersQuery,
      errorStatuses: [400, 401, 500, 503],
      responseData: z.object({
        clusters: z
          .array(
            z.object({
              latitude: z.number(),
              longitude: z.number(),
              count: z.number().int(),
              id: z.string().optional().describe('Only on a point that is a single item'),
            }),
          )
          .max(300),
        total: z.number().int().describe('Every matching item in the box'),
      }),
      handler: async ({ optionalCaller, query }) => ({ message: 'Clusters', data: await listings.clusters(optionalCaller, query) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/feeds`,
      tag,
      auth: 'user',
      summary: 'Personal feed: followed uploaders first, then fresh popular items, then the rest (cursor pages)',
      query: feedQuery,
      headers: languageHeader,
      errorStatuses: [400, 401, 500],
      responseData: z.object({
        items: z.array(feedItemSchema.extend({ sponsored: sponsoredMarkSchema })),
        next_cursor: z.string().nullable(),
        has_more: z.boolean(),
      }),
      handler: async ({ caller, query, headers }) => ({
        message: 'Feed',
        data: await feedPages.page(
          caller,
          query.per_page,
          query.cursor,
          headers['x-language'],
          query.latitude !== undefined && query.longitude !== undefined ? { latitude: query.latitude, longitude: query.longitude } : undefined,
        ),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: `${api}/content/:id`,
      tag,
      auth: 'optional',
      summary: 'Content detail (uploader phone only with read:contact)',
      params: contentIdParams,
      responseData: contentDetailSchema,
      errorStatuses: [400, 401, 404, 500],
      handler: async ({ optionalCaller, params }) => ({ message: 'Content detail', data: await content.detailAnswer(optionalCaller, params.id) }),
    }),
    defineRoute({
      method: 'PUT',
      path: `${api}/content/:id`,
      tag,
      auth: 'user',
      summary:
        "Edit a content item (owner or update:any_content; another user's item only if they hold no permission the caller lacks, else 403, and not the last active admin's, 409)",
      params: contentIdParams,
      body: editContentBody,
      responseData: contentDetailSchema,
      errorStatuses: [400, 401, 403, 404, 409, 500],
      handler: async ({ caller, params, body }) => ({ message: 'Content updated', data: await content.edit(caller, params.id, body) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${api}/content/:id`,
      tag,
      auth: 'user',
      summary: "Delete a content item (owner or update:any_content, within the caller's reach as for editing); soft delete",
      params: contentIdParams,
      responseData: z.object({ message: z.string() }),
      errorStatuses: [400, 401, 403, 404, 409, 500],
      handler: async ({ caller, params }) => {
        await content.remove(caller, params.id);
        return { message: 'Content deleted', data: { message: 'Content deleted' } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${api}/content/:id/reactions`,
      tag,
      auth: 'user',
      permission: 'create:reaction',
      summary: 'Like a content item (idempotent)',
      params: contentIdParams,
      errorStatuses: [400, 401, 403, 404, 500],
      responseData: z.object({ reacted: z.boolean(), reaction_count: z.number().int() }),
      handler: async ({ caller, params }) => ({ message: 'Reaction saved', data: await content.react(caller, params.id, true) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${api}/content/:id/reactions`,
      tag,
      auth: 'user',
      permission: 'create:reaction',
      summary: "Remove the caller's like (idempotent)",
      params: contentIdParams,
      errorStatuses: [400, 401, 403, 404, 500],
      responseData: z.object({ reacted: z.boolean(), reaction_count: z.number().int() }),
      handler: async ({ caller, params }) => ({ message: 'Reaction removed', data: await content.react(caller, params.id, false) }),
    }),
  ];
});
