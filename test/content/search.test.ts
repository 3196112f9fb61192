// Search and map as CONTRACT §23 says, over the real server answering from its listing index:
// relevance order, typos, diacritics, Korean, AND, facets, deep pages, map clusters (counts that
// add up zoom by zoom, bad boxes), and that an edit, a delete and a publish show in the next
// search. Facets are checked against the totals of the same query with each value as a filter,
// and clusters against a plain grouping of the listed items by grid cell (the index is the only
// engine: nothing else to compare with).
import { beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { CONTENT, createContent, fullBody, publish } from './fixtures.js';
import { idsFor, indexReady, publishWorld, searchFor, type World } from './search.fixtures.js';

const booted = useTestServer();
let server: TestServer;
let owner: TestUser;
let anonymous: ApiClient;
let world: World;
const tag = `#s${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  server = booted.current;
  owner = await registerAndLogin(server);
  anonymous = new ApiClient(server.url);
  world = await publishWorld(server, owner, tag);
  await createContent(
    owner,
    fullBody({ hash_tags: [tag], content_info: [{ lang: 'en', project_name: 'Vinhomes draft', description: 'not yet', address: 'x' }] }),
  );
  await indexReady(server);
});

describe('search (CONTRACT §23)', () => {
  it('should answer from the listing index', () => {
    expect(server.service.services.listingIndex.ready()).toBe(true);
    expect(server.service.services.listingIndex.size()).toBeGreaterThanOrEqual(7);
  });

  it('should order by relevance: title before description, whole word before part, worst first with sort=asc', async () => {
    expect(await searchFor(anonymous, 'vinhomes', '&column=relevance')).toEqual([world.central, world.garden]);
    expect(await searchFor(anonymous, 'vinhomes', '&column=relevance&sort=asc')).toEqual([world.garden, world.central]);
    const park = await searchFor(anonymous, 'park', '&column=relevance');
    expect(park[0]).toBe(world.central); // the whole word, in the title
    expect([...park].sort()).toEqual([world.central, world.garden, world.parkview, world.seoul].sort()); // Seoul: `parking`
    // Part of a word in a title (`Parkview`), then the whole word in a description, then part of one (`parking`).
    expect(park).toEqual([world.central, world.parkview, world.garden, world.seoul]);
    // Without a search, relevance is the default order.
    expect(await idsFor(anonymous, 'column=relevance')).toEqual(await idsFor(anonymous, 'column=created_at'));
  });

  it('should forgive one typo in a word of 5+ letters, and none in a shorter one', async () => {
    for (const typo of ['vinhomez', 'vinhoems', 'vinhome', 'vinnhomes', 'vinomes']) {
      expect((await searchFor(anonymous, typo)).sort(), typo).toEqual([world.central, world.garden].sort());
    }
    expect(await searchFor(anonymous, 'vinhozez')).toEqual([]); // two edits
    expect(await searchFor(anonymous, 'garxen')).toEqual([world.garden]);
    expect(await searchFor(anonymous, 'vila')).toEqual([]); // 4 letters: as typed (`vila` is no word's beginning)
  });

  it('should ignore case and Vietnamese diacritics', async () => {
    expect(await searchFor(anonymous, 'can ho dong da')).toEqual([world.dongda]);
    expect(await searchFor(anonymous, 'ĐỐNG ĐA')).toEqual([world.dongda]);
    expect(await searchFor(anonymous, 'gan HO yen tinh')).toEqual([world.dongda]);
    expect(await searchFor(anonymous, 'VINHOMES central')).toEqual([world.central]);
  });

  it('should find Korean by any two consecutive syllables of a word', async () => {
    for (const text of ['강남', '아파트', '파트', '아파', '신축', '서울 아파트', '남구']) {
      expect(await searchFor(anonymous, text), text).toEqual([world.seoul]);
    }
    expect(await searchFor(anonymous, '트아')).toEqual([]); // not within one word
    expect(await searchFor(anonymous, '강북')).toEqual([]);
  });

  it('should match every word (AND)', async () => {
    expect(await searchFor(anonymous, 'vinhomes villa')).toEqual([world.garden]);
    expect(await searchFor(anonymous, 'vinhomes studio')).toEqual([]);
    expect(await searchFor(anonymous, '%')).toEqual([]); // no word at all: nothing
  });

  it('should keep unpublished items to their uploader', async () => {
    expect(await searchFor(anonymous, 'vinhomes')).toHaveLength(2);
    expect(await searchFor(owner.api, 'vinhomes')).toHaveLength(3);
  });

  it('should answer deep pages empty, with the exact total', async () => {
    const deep = await anonymous.get(`${CONTENT}/all?search=${encodeURIComponent(tag)}&per_page=2&page=25`);
    expect(deep.body.data).toEqual({ item: [], hasMore: false, total: 6 });
    const last = await anonymous.get(`${CONTENT}/all?search=${encodeURIComponent(tag)}&per_page=2&page=3`);
    expect(last.body.data.item).toHaveLength(2);
    expect(last.body.data.hasMore).toBe(false);
  });
});

describe('facets (CONTRACT §23)', () => {
  const facetsOf = async (s: TestServer, query: string) => {
    const res = await new ApiClient(s.url).get(`${CONTENT}/all?search=${encodeURIComponent(tag)}&${query}`);
    expect(res.status, res.text).toBe(200);
    return res.body.data;
  };

  it('should count each facet over the matches of the other filters', async () => {
    const data = await facetsOf(server, 'facets=amenities,apartment_type,project_status,price&amenities=pool&price_from=1000000000');
    expect(data.total).toBe(2); // central, garden
    // amenities ignores its own filter: every item of 1,000,000,000 or more.
    expect(data.facets.amenities).toEqual({ pool: 2, gym: 2 });
    // The others keep amenities=pool and the price: central and garden.
    expect(data.facets.apartment_type).toEqual({ apartment: 1, villa: 1 });
    expect(data.facets.project_status).toEqual({ handed_over: 1, under_construction: 1 });
    // Price ignores its own range: every item with a pool (central, garden, cheap; seoul has none).
    expect(data.facets.price).toEqual([
      { from: 500_000_000, to: 1_000_000_000, count: 1 },
      { from: 2_000_000_000, to: 5_000_000_000, count: 1 },
      { from: 5_000_000_000, to: 10_000_000_000, count: 1 },
    ]);
    const sum = data.facets.price.reduce((n: number, b: { count: number }) => n + b.count, 0);
    expect(sum).toBe((await facetsOf(server, 'amenities=pool')).total);
  });

  it('should add only the facets asked for, and refuse an unknown one', async () => {
    const data = await facetsOf(server, 'facets=price');
    expect(Object.keys(data.facets)).toEqual(['price']);
    expect((await facetsOf(server, '')).facets).toBeUndefined();
    expectErrorEnvelope(await anonymous.get(`${CONTENT}/all?facets=colour`), 400, 'validation.error');
    expectErrorEnvelope(await anonymous.get(`${CONTENT}/all?facets=price,bedrooms`), 400, 'validation.error');
  });

  it('should count what the same query finds with each value as its filter', async () => {
    const others = 'amenities=pool&price_from=1000000000&project_status=handed_over';
    const { facets } = await facetsOf(server, `facets=amenities,apartment_type,project_status,price&${others}`);
    const totalOf = async (query: string) => (await facetsOf(server, query)).total;
    const without = (name: string) =>
      others
        .split('&')
        .filter((p) => !p.startsWith(`${name}=`) && !(name === 'price' && p.startsWith('price_')))
        .join('&');
    for (const name of ['amenities', 'apartment_type', 'project_status'] as const) {
      for (const [value, count] of Object.entries(facets[name] as Record<string, number>)) {
        expect(await totalOf(`${without(name)}&${name}=${encodeURIComponent(value)}`), `${name}=${value}`).toBe(count);
      }
    }
    for (const bucket of facets.price as { from: number; to: number; count: number }[]) {
      // Buckets are [from, to); the seeded prices are whole numbers.
      expect(await totalOf(`${without('price')}&price_from=${bucket.from}&price_to=${bucket.to - 1}`), `price from ${bucket.from}`).toBe(bucket.count);
    }
  });
});

describe('GET /content/api/v1/completed/clusters (CONTRACT §23)', () => {
  const box = 'min_lat=-10&max_lat=30&min_lng=100&max_lng=130';
  const clusters = (query: string) => new ApiClient(server.url).get(`${CONTENT}/completed/clusters?${query}`);

  it('should refuse bad boxes', async () => {
    for (const q of [
      'min_lat=-91&max_lat=10&min_lng=0&max_lng=10&zoom=3',
      'min_lat=0&max_lat=91&min_lng=0&max_lng=10&zoom=3',
      'min_lat=0&max_lat=10&min_lng=-181&max_lng=10&zoom=3',
      'min_lat=0&max_lat=10&min_lng=0&max_lng=181&zoom=3',
      'min_lat=20&max_lat=10&min_lng=0&max_lng=10&zoom=3',
      'min_lat=0&max_lat=10&min_lng=20&max_lng=10&zoom=3',
      'min_lat=0&max_lat=10&min_lng=-100&max_lng=100&zoom=3',
      'min_lat=0&max_lat=10&min_lng=0&max_lng=10&zoom=21',
      'min_lat=0&max_lat=10&min_lng=0&max_lng=10&zoom=-1',
      'min_lat=0&max_lat=10&min_lng=0&max_lng=10&zoom=2.5',
      'min_lat=0&max_lat=10&min_lng=0&max_lng=10',
      'max_lat=10&min_lng=0&max_lng=10&zoom=3',
      'min_lat=a&max_lat=10&min_lng=0&max_lng=10&zoom=3',
      `${box}&zoom=3&price_from=-1`,
      `${box}&zoom=3&unit_price=XYZ`,
    ]) {
      expectErrorEnvelope(await clusters(q), 400, 'validation.error');
    }
  });

  it('should count every published item in the box, and split clusters zoom by zoom', async () => {
    let previous: { latitude: number; longitude: number; count: number; id?: string }[] | null = null;
    for (let zoom = 0; zoom <= 20; zoom++) {
      const res = await clusters(`${box}&zoom=${zoom}`);
      expect(res.status, res.text).toBe(200);
      const { clusters: found, total } = res.body.data;
      expect(total).toBe(5); // every published item but Seoul (outside the box)
      expect(
        found.reduce((n: number, c: { count: number }) => n + c.count, 0),
        `zoom ${zoom}`,
      ).toBe(total);
      expect(found.length).toBeLessThanOrEqual(300);
      for (const c of found) expect(c.id !== undefined).toBe(c.count === 1);
      if (previous) {
        // The same items, split further (never merged): as many or more clusters, and no larger.
        expect(found.length).toBeGreaterThanOrEqual(previous.length);
        expect(Math.max(...found.map((c: { count: number }) => c.count))).toBeLessThanOrEqual(Math.max(...previous.map((c) => c.count)));
      }
      previous = found;
    }
    // A box of a few streets at zoom 16: each item its own point, with its id and position.
    const street = (await clusters('min_lat=10.785&max_lat=10.815&min_lng=106.695&max_lng=106.725&zoom=16')).body.data;
    expect(street.total).toBe(3);
    expect(street.clusters.map((c: { id: string }) => c.id).sort()).toEqual([world.central, world.parkview, world.cheap].sort());
    expect(street.clusters.find((c: { id: string }) => c.id === world.central)).toEqual({ latitude: 10.79, longitude: 106.72, count: 1, id: world.central });
  });

  it('should place a cluster at the mean position of its items', async () => {
    const res = await clusters('min_lat=20&max_lat=22&min_lng=105&max_lng=106&zoom=3');
    expect(res.body.data.clusters).toEqual([{ latitude: (21.03 + 21.02) / 2, longitude: (105.85 + 105.83) / 2, count: 2 }]);
  });

  it('should narrow by search and filters', async () => {
    expect((await clusters(`${box}&zoom=5&search=vinhomez`)).body.data.total).toBe(2);
    expect((await clusters(`${box}&zoom=5&price_from=2500000000`)).body.data.total).toBe(2);
    expect((await clusters(`${box}&zoom=5&amenities=gym&apartment_type=apartment`)).body.data.total).toBe(2);
    expect((await clusters('min_lat=0&max_lat=1&min_lng=0&max_lng=1&zoom=5')).body.data).toEqual({ clusters: [], total: 0 });
  });

  it('should leave out the uploaders the caller blocked', async () => {
    const viewer = await registerAndLogin(server);
    const before = await viewer.api.get(`${CONTENT}/completed/clusters?${box}&zoom=5`);
    expect(before.body.data.total).toBe(5);
    expect((await viewer.api.post(`/auth/api/v1/users/${owner.userId}/block`)).status).toBe(201);
    expect((await viewer.api.get(`${CONTENT}/completed/clusters?${box}&zoom=5`)).body.data).toEqual({ clusters: [], total: 0 });
    expect((await clusters(`${box}&zoom=5`)).body.data.total).toBe(5); // others still see them
  });

  it('should give the clusters of a plain grouping of the listed items by grid cell', async () => {
    const listed = await anonymous.get(`${CONTENT}/all?search=${encodeURIComponent(tag)}&per_page=100`);
    const points = (listed.body.data.item as { id: string; geo: { lat: number; long: number } | null }[])
      .filter((i) => i.geo && i.geo.lat >= -10 && i.geo.lat <= 30 && i.geo.long >= 100 && i.geo.long <= 130)
      .map((i) => ({ id: i.id, lat: i.geo!.lat, lng: i.geo!.long }));
    // Web-mercator cells, 2^(zoom+2) across; a coarser level while the box spans more than 300.
    const x = (lng: number) => (lng + 180) / 360;
    const y = (lat: number) => 0.5 - Math.log((1 + Math.sin((lat * Math.PI) / 180)) / (1 - Math.sin((lat * Math.PI) / 180))) / (4 * Math.PI);
    const cell = (v: number, n: number) => Math.min(n - 1, Math.max(0, Math.floor(v * n)));
    for (const zoom of [0, 3, 8, 12, 16, 20]) {
      let level = zoom + 2;
      const spans = (n: number) => (cell(x(130), n) - cell(x(100), n) + 1) * (cell(y(-10), n) - cell(y(30), n) + 1);
      while (level > 0 && spans(2 ** level) > 300) level--;
      const n = 2 ** level;
      const cells = new Map<string, { lat: number; lng: number; ids: string[] }>();
      for (const p of points) {
        const key = `${cell(y(p.lat), n)}/${cell(x(p.lng), n)}`;
        const c = cells.get(key) ?? { lat: 0, lng: 0, ids: [] };
        c.lat += p.lat;
        c.lng += p.lng;
        c.ids.push(p.id);
        cells.set(key, c);
      }
      const expected = [...cells.values()].map((c) => ({ count: c.ids.length, latitude: c.lat / c.ids.length, longitude: c.lng / c.ids.length }));
      const found = (await clusters(`${box}&zoom=${zoom}`)).body.data;
      expect(found.total, `zoom ${zoom}`).toBe(points.length);
      const shape = (list: { count: number; latitude: number; longitude: number }[]) =>
        list.map((c) => `${c.count}@${c.latitude.toFixed(6)},${c.longitude.toFixed(6)}`).sort();
      expect(shape(found.clusters), `zoom ${zoom}`).toEqual(shape(expected));
    }
  });
});

describe('changes show in the next search', () => {
  it('should show an edit, a delete and a publish', async () => {
    const edit = await owner.api.put(`/api/v1/content/${world.cheap}`, {
      price: 800_000_000,
      area: 30,
      location: { latitude: 10.81, longitude: 106.71 },
      languages: { en: { projectName: 'Saffron loft', description: 'Small and bright', address: 'District 1' } },
    });
    expect(edit.status, edit.text).toBe(200);
    expect(await searchFor(anonymous, 'saffron')).toEqual([world.cheap]);
    expect(await searchFor(anonymous, 'budget')).toEqual([]);

    expect((await owner.api.delete(`/api/v1/content/${world.garden}`)).status).toBe(200);
    expect(await searchFor(anonymous, 'vinhomes')).toEqual([world.central]);

    const fresh = await publish(
      server,
      owner,
      fullBody({ hash_tags: [tag], content_info: [{ lang: 'en', project_name: 'Marigold residence', description: 'New', address: 'x' }] }),
    );
    expect(await searchFor(anonymous, 'marigold')).toEqual([fresh]);
    expect(server.service.services.listingIndex.ready()).toBe(true);
  });

  it('should move an edited price or area in and out of range filters at once', async () => {
    const word = `zinnia${randomBytes(3).toString('hex')}`;
    const id = await publish(
      server,
      owner,
      fullBody({
        hash_tags: [tag],
        price: 1_500_000_000,
        area: 70,
        content_info: [{ lang: 'en', project_name: `${word} house`, description: 'x', address: 'x' }],
      }),
    );
    const within = (range: string) => searchFor(anonymous, word, `&${range}`);
    expect(await within('price_from=1000000000&price_to=2000000000')).toEqual([id]);
    expect(await within('area_from=60&area_to=80')).toEqual([id]);
    expect(await within('price_from=1500000000&price_to=1500000000&area_from=70&area_to=70')).toEqual([id]); // bounds are inclusive

    const edit = await owner.api.put(`/api/v1/content/${id}`, {
      price: 3_000_000_000,
      area: 120,
      location: { latitude: 10.81, longitude: 106.71 },
      languages: { en: { projectName: `${word} house`, description: 'x', address: 'x' } },
    });
    expect(edit.status, edit.text).toBe(200);
    expect(await within('price_from=1000000000&price_to=2000000000')).toEqual([]);
    expect(await within('price_from=2500000000')).toEqual([id]);
    expect(await within('area_from=60&area_to=80')).toEqual([]);
    expect(await within('area_from=100&column=price&sort=asc')).toEqual([id]);

    expect((await owner.api.delete(`/api/v1/content/${id}`)).status).toBe(200);
    expect(await within('price_from=2500000000')).toEqual([]);
  });
});
