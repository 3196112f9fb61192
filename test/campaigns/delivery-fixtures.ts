// Helpers of the delivery tests: a listed item with a paid campaign on it, first pages as a
// viewer browsing somewhere, and waiting for the recorded figures (they lag by a batch).
import { expect } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import type { TestUser } from '../helpers/api.js';
import { publish, fullBody } from '../content/fixtures.js';
import { estimate } from './fixtures.js';

export const CONTENT = '/content/api/v1';
/** Centres of places the tests browse. */
export const PLACES = {
  district1: { latitude: 10.7725, longitude: 106.698 },
  hanoi: { latitude: 21.0285, longitude: 105.8542 },
  daNang: { latitude: 16.0544, longitude: 108.2022 },
  haiPhong: { latitude: 20.8449, longitude: 106.6881 },
  hue: { latitude: 16.4637, longitude: 107.5909 },
  nhaTrang: { latitude: 12.2388, longitude: 109.1967 },
  canTho: { latitude: 10.0452, longitude: 105.7469 },
} as const;
export type Place = keyof typeof PLACES;

export interface Promoted {
  campaignId: string;
  videoId: string;
  budget: number;
  cpm: number;
}

/** A listed item of `owner` promoted by a campaign paid by card, targeting `locationId` (none: everywhere). */
export async function promote(server: TestServer, owner: TestUser, o: { locationId?: string; budget?: number; duration?: number } = {}): Promise<Promoted> {
  const budget = o.budget ?? 1_000_000;
  const duration = o.duration ?? 7;
  const videoId = await publish(server, owner, fullBody());
  const locations = o.locationId ? [{ id: o.locationId, type: 'city' }] : [];
  const est = await estimate(owner, videoId, { budget: { amount: budget, currency: 'VND' }, duration_days: duration, targeting: { locations } });
  const res = await owner.api.post('/api/v1/campaigns/create', {
    estimation_id: est.estimation_id,
    video_id: videoId,
    campaign_config: { name: 'Promotion', budget: { amount: budget, currency: 'VND' }, duration_days: duration },
    payment: { method: 'card', amount: budget + Math.round(budget * 0.05), payment_token: 'tok_visa' },
  });
  expect(res.status, res.text).toBe(201);
  return { campaignId: res.body.data.campaign_id, videoId, budget, cpm: est.metrics.cpm };
}

export const at = (place: Place) => `latitude=${PLACES[place].latitude}&longitude=${PLACES[place].longitude}`;

/** The first page of /feeds for `user`, optionally naming the centre browsed. */
export async function feedItems(user: TestUser, place?: Place): Promise<any[]> {
  const res = await user.api.get(`${CONTENT}/feeds?per_page=10${place ? `&${at(place)}` : ''}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.items;
}

export async function allItems(user: TestUser, place?: Place, page = 1): Promise<any[]> {
  const res = await user.api.get(`${CONTENT}/all?per_page=10&page=${page}${place ? `&${at(place)}` : ''}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.item;
}

export const sponsoredOf = (items: any[]) => items.filter((i) => i.sponsored);

/** Browses a map viewport (what `/completed` with a centre does). */
export async function browse(user: TestUser, place: Place): Promise<void> {
  const res = await user.api.get(`${CONTENT}/completed?${at(place)}&zoom_level=13`);
  expect(res.status, res.text).toBe(200);
}

export async function campaign(owner: TestUser, id: string): Promise<any> {
  const res = await owner.api.get(`/api/v1/campaigns/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** Polls the campaign until `done` holds (figures are recorded in batches). */
export async function campaignUntil(owner: TestUser, id: string, done: (c: any) => boolean, timeoutMs = 15_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = await campaign(owner, id);
    if (done(c)) return c;
    if (Date.now() > deadline) throw new Error(`campaign ${id} never reached the state: ${JSON.stringify(c.delivery)} ${c.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls until `read` answers what `done` wants (a roster follows a change within a second). */
export async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`never reached: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
