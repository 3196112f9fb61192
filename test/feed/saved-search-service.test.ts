// SavedSearchService and SavedSearchMatcher tested directly: built in the test from their
// repositories over a fresh database (test/helpers/domain.ts), no HTTP server. The rules: at most
// MAX_SAVED_SEARCHES per user even when creations race, a search is its owner's alone (another's
// id is 404), its matches are the published items its filters take, and a published item is
// matched once: an `instant` search is told at once, a `daily` one in the day's digest, `off` never.
import { beforeAll, describe, expect, it } from 'vitest';
import { ContentSerialiser } from '../../src/content/serialise.js';
import { SavedSearchMatcher } from '../../src/saved-searches/matcher.js';
import { createSavedSearchBody, MAX_SAVED_SEARCHES, matchesQuery, type NotifyMode } from '../../src/saved-searches/schemas.js';
import { SavedSearchService } from '../../src/saved-searches/service.js';
import { newId } from '../../src/shared/ids.js';
import type { Caller } from '../../src/auth/caller.js';
import { useTestDomain, type TestDomain } from '../helpers/domain.js';

const opened = useTestDomain();
let domain: TestDomain;
let searches: SavedSearchService;
let matcher: SavedSearchMatcher;

beforeAll(() => {
  domain = opened.current;
  const { app, repositories } = domain;
  searches = new SavedSearchService(app, repositories.savedSearches, repositories.listings, new ContentSerialiser(app.config), domain.blocks());
  matcher = new SavedSearchMatcher(app, repositories.savedSearchMatches, domain.notifications());
});

/** A search for items priced within `band` (VND; 1–2 billion by default), parsed by the route's own body schema. */
const search = (caller: Caller, notify: NotifyMode = 'instant', name = 'Mid price', band = [1_000_000_000, 2_000_000_000]) =>
  searches.create(caller, createSavedSearchBody.parse({ name, filters: { price_from: band[0], price_to: band[1], unit_price: 'VND' }, notify }));

const firstPage = matchesQuery.parse({});
const matchNotifications = async (userId: string) =>
  (await domain.notifications().list(userId, { limit: 100 })).notifications.filter((n) => n.type === 'saved_search.match');

describe('SavedSearchService refusals', () => {
  it(`refuses with 409 saved_search.error.limit_reached a search beyond ${MAX_SAVED_SEARCHES}`, async () => {
    const caller = await domain.createUser();
    for (let i = 0; i < MAX_SAVED_SEARCHES; i++) await search(caller, 'off', `search ${i}`);
    await expect(search(caller)).rejects.toMatchObject({ status: 409, code: 'saved_search.error.limit_reached' });
    expect((await searches.list(caller)).items).toHaveLength(MAX_SAVED_SEARCHES);
  });

  it('keeps the limit when creations race: of five at the last free place, four are refused', async () => {
    const caller = await domain.createUser();
    for (let i = 0; i < MAX_SAVED_SEARCHES - 1; i++) await search(caller, 'off', `search ${i}`);
    // Connections open first (server mode), so the racing transactions overlap.
    await Promise.all(Array.from({ length: 5 }, () => searches.list(caller)));
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => search(caller, 'off', `racer ${i}`)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const refused of outcomes.filter((o) => o.status === 'rejected')) {
      expect(refused).toMatchObject({ reason: { status: 409, code: 'saved_search.error.limit_reached' } });
    }
    expect((await searches.list(caller)).items).toHaveLength(MAX_SAVED_SEARCHES);
  });

  it("answers 404 saved_search.error.not_found for another user's search (matches and delete), and leaves it alone", async () => {
    const [owner, other] = [await domain.createUser(), await domain.createUser()];
    const own = await search(owner);
    await expect(searches.matches(other, own.id, firstPage)).rejects.toMatchObject({ status: 404, code: 'saved_search.error.not_found' });
    await expect(searches.remove(other, own.id)).rejects.toMatchObject({ status: 404, code: 'saved_search.error.not_found' });
    expect((await searches.list(other)).items).toEqual([]);
    expect((await searches.list(owner)).items.map((s) => s.id)).toEqual([own.id]);
  });

  it('answers 404 for a search that does not exist and 400 saved_search.error.invalid_cursor for a cursor it did not issue', async () => {
    const caller = await domain.createUser();
    await expect(searches.remove(caller, newId())).rejects.toMatchObject({ status: 404 });
    const own = await search(caller);
    await expect(searches.matches(caller, own.id, matchesQuery.parse({ cursor: 'bm90LWEtY3Vyc29y' }))).rejects.toMatchObject({
      status: 400,
      code: 'saved_search.error.invalid_cursor',
    });
  });
});

describe('SavedSearchService.matches', () => {
  it('pages the published items the filters take, newest first, and nothing else', async () => {
    const [caller, uploader] = [await domain.createUser(), await domain.createUser()];
    // A price band of this test's own, so other tests' items stay out of it.
    const own = await search(caller, 'off', 'High price', [5_000_000_000, 6_000_000_000]);
    const inRange = [];
    for (let i = 0; i < 3; i++) {
      const id = await domain.createContent(uploader.userId, { price: 5_500_000_000 });
      await domain.publish(id);
      inRange.push(id);
    }
    await domain.createContent(uploader.userId, { price: 5_500_000_000 }); // not published
    await domain.publish(await domain.createContent(uploader.userId, { price: 9_000_000_000 })); // priced out
    const first = await searches.matches(caller, own.id, matchesQuery.parse({ per_page: 2 }));
    expect(first.has_more).toBe(true);
    const second = await searches.matches(caller, own.id, matchesQuery.parse({ per_page: 2, cursor: first.next_cursor }));
    expect(second).toMatchObject({ has_more: false, next_cursor: null });
    expect([...first.items, ...second.items].map((item) => item.id)).toEqual([...inRange].reverse());
  });
});

describe('SavedSearchMatcher', () => {
  it('matches a published item once: instant searches are told at once, daily ones in one digest, off never', async () => {
    const [instantUser, dailyUser, offUser, uploader] = await Promise.all([domain.createUser(), domain.createUser(), domain.createUser(), domain.createUser()]);
    const instant = await search(instantUser, 'instant');
    const daily = await search(dailyUser, 'daily');
    await search(offUser, 'off');
    const contentId = await domain.createContent(uploader.userId, { price: 1_200_000_000 });
    await domain.publish(contentId);

    // Other tests' searches may match too; these three are among them.
    expect(await matcher.matchPublished(contentId)).toBeGreaterThanOrEqual(3);
    expect(await matcher.matchPublished(contentId)).toBe(0);
    const told = await matchNotifications(instantUser.userId);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ subject: { type: 'content', id: contentId }, data: { saved_search_id: instant.id } });
    expect(await matchNotifications(dailyUser.userId)).toEqual([]);
    expect(await matchNotifications(offUser.userId)).toEqual([]);

    expect(await matcher.sendDailyDigests()).toBeGreaterThanOrEqual(1);
    expect(await matcher.sendDailyDigests()).toBe(0);
    const digest = await matchNotifications(dailyUser.userId);
    expect(digest).toHaveLength(1);
    expect(digest[0]).toMatchObject({ data: { saved_search_id: daily.id, digest: true, count: 1, content_ids: [contentId] } });
    expect(await matchNotifications(offUser.userId)).toEqual([]);
  });

  it('does not match an item that is not published', async () => {
    const [caller, uploader] = [await domain.createUser(), await domain.createUser()];
    await search(caller, 'instant');
    const contentId = await domain.createContent(uploader.userId, { price: 1_200_000_000 });
    expect(await matcher.matchPublished(contentId)).toBe(0);
    expect(await matchNotifications(caller.userId)).toEqual([]);
  });
});
