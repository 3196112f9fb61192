// Items and helpers shared by the search tests (CONTRACT §23): a small world of listings whose
// words, prices and places make each rule of search, facets and clusters visible.
import { expect } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import type { ApiClient, TestUser } from '../helpers/api.js';
import { CONTENT, fullBody, publish, uploadFlowBody } from './fixtures.js';

const block = (lang: string, project_name: string, description: string, address = 'somewhere') => ({ lang, project_name, description, address });

export type World = Record<'central' | 'garden' | 'parkview' | 'seoul' | 'dongda' | 'cheap', string>;

/** Publishes the world's items (as `owner`); every one carries `tag` so a search can keep to them. */
export async function publishWorld(server: TestServer, owner: TestUser, tag: string): Promise<World> {
  const tags = { hash_tags: [tag] };
  return {
    central: await publish(
      server,
      owner,
      fullBody({
        ...tags,
        price: 3_000_000_000,
        amenities: ['pool', 'gym'],
        geo: { lat: 10.79, long: 106.72 },
        real_estate_info: { apartment_type: 'apartment', project_status: 'handed_over' },
        content_info: [block('en', 'Vinhomes Central Park', 'River view, two bedrooms')],
      }),
    ),
    garden: await publish(
      server,
      owner,
      fullBody({
        ...tags,
        price: 5_000_000_000,
        amenities: ['pool'],
        geo: { lat: 21.03, long: 105.85 },
        real_estate_info: { apartment_type: 'villa', project_status: 'under_construction' },
        content_info: [block('en', 'Garden villa', 'Quiet street near the Vinhomes park')],
      }),
    ),
    parkview: await publish(
      server,
      owner,
      fullBody({
        ...tags,
        price: 1_200_000_000,
        amenities: ['gym'],
        geo: { lat: 10.8, long: 106.7 },
        real_estate_info: { apartment_type: 'apartment', project_status: 'handed_over' },
        content_info: [block('en', 'Parkview tower', 'Studio with a balcony')],
      }),
    ),
    seoul: await publish(server, owner, uploadFlowBody({ ...tags })),
    dongda: await publish(
      server,
      owner,
      fullBody({
        ...tags,
        price: 2_000_000_000,
        amenities: [],
        geo: { lat: 21.02, long: 105.83 },
        real_estate_info: { apartment_type: 'apartment', project_status: 'handed_over' },
        content_info: [block('vi', 'Căn hộ Đống Đa', 'Gần hồ, yên tĩnh', 'Đống Đa, Hà Nội')],
      }),
    ),
    cheap: await publish(
      server,
      owner,
      fullBody({
        ...tags,
        price: 900_000_000,
        amenities: ['pool'],
        geo: { lat: 10.81, long: 106.71 },
        real_estate_info: { apartment_type: 'studio', project_status: 'handed_over' },
        content_info: [block('en', 'Budget studio', 'Small and bright')],
      }),
    ),
  };
}

/** Waits (bounded) until the node answers listings from its index, not from PostgreSQL. */
export async function indexReady(server: TestServer): Promise<void> {
  // Loading tens of thousands of rows on a loaded machine may take a while: the bound is generous.
  for (let i = 0; i < 2_400; i++) {
    if (server.service.services.listingIndex.ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the listing index never became ready');
}

/** The ids `/all` lists for a query. */
export async function idsFor(client: ApiClient, query: string): Promise<string[]> {
  const res = await client.get(`${CONTENT}/all?per_page=100&${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.item.map((i: { id: string }) => i.id);
}

export const searchFor = (client: ApiClient, text: string, more = '') => idsFor(client, `search=${encodeURIComponent(text)}${more}`);
