import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';

let server: TestServer;
let user: TestUser;
const booted = useTestServer();
beforeAll(async () => {
  server = booted.current;
  user = await registerAndLogin(server);
});

const search = (q: string) => user.api.get(`/api/v1/targeting/locations?${q}`);

describe('GET /api/v1/targeting/locations', () => {
  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).get('/api/v1/targeting/locations?query=ha'), 401);
  });

  it.each([
    ['no query', ''],
    ['a blank query', 'query=%20%20'],
    ['a limit over 50', 'query=ha&limit=51'],
    ['a limit of 0', 'query=ha&limit=0'],
    ['a limit that is not a number', 'query=ha&limit=abc'],
    ['an unknown type', 'query=ha&type=village'],
    ['a query over 100 characters', `query=${'x'.repeat(101)}`],
  ])('should fail with 400 with %s', async (_case, q) => {
    expectErrorEnvelope(await search(q), 400, 'validation.error');
  });

  it('should fail with 400 unsupported_country naming country for another country', async () => {
    const country = expectErrorEnvelope(await search('query=ha&country=TH'), 400, 'targeting.error.unsupported_country');
    expect(country.details?.field).toBe('country');
  });

  it('should find Hà Nội accent-insensitively with population and a suggested budget', async () => {
    const res = await search('query=ha%20noi');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const [first] = res.body.data.locations;
    expect(first).toMatchObject({ id: 'vn-ha-noi', name: 'Hà Nội', type: 'city' });
    expect(first.population).toBeGreaterThan(7_000_000);
    expect(Number.isInteger(first.population)).toBe(true);
    expect(first.suggested_budget.min).toBeGreaterThan(0);
    expect(first.suggested_budget.max).toBeGreaterThan(first.suggested_budget.min);
    // The accented spelling and an English alias find the same place.
    expect((await search(`query=${encodeURIComponent('Hà Nội')}`)).body.data.locations[0].id).toBe('vn-ha-noi');
    expect((await search('query=hanoi')).body.data.locations[0].id).toBe('vn-ha-noi');
  });

  it('should have the 63 provinces and the districts of the big cities', async () => {
    const cities = new Set<string>();
    for (const letter of 'abcdefghijklmnopqrstuvwxyz') {
      const res = await search(`query=${letter}&type=city&limit=50`);
      for (const l of res.body.data.locations) cities.add(l.id);
    }
    expect(cities.size).toBe(63);
    const hcm = await search('query=quan%201&type=district');
    expect(hcm.body.data.locations[0]).toMatchObject({ name: 'Quận 1', type: 'district' });
    const danang = await search(`query=${encodeURIComponent('hai chau')}`);
    expect(danang.body.data.locations[0]).toMatchObject({ name: 'Hải Châu', type: 'district', parent_id: 'vn-da-nang' });
    const hanoiDistrict = await search('query=cau%20giay');
    expect(hanoiDistrict.body.data.locations[0]).toMatchObject({ name: 'Cầu Giấy', parent_id: 'vn-ha-noi' });
  });

  it('should filter by type and honour limit (default 10, at most 50)', async () => {
    const districts = await search('query=a&type=district&limit=50');
    expect(districts.body.data.locations.length).toBeGreaterThan(10);
    expect(districts.body.data.locations.every((l: any) => l.type === 'district')).toBe(true);
    expect((await search('query=a')).body.data.locations).toHaveLength(10);
    expect((await search('query=a&limit=3')).body.data.locations).toHaveLength(3);
    expect((await search('query=a&type=all&country=vn')).status).toBe(200);
  });

  it('should suggest a larger budget for a larger population', async () => {
    const hcm = (await search('query=ho%20chi%20minh&type=city')).body.data.locations[0];
    const district = (await search(`query=${encodeURIComponent('Cần Giờ')}`)).body.data.locations[0];
    expect(hcm.population).toBeGreaterThan(district.population);
    expect(hcm.suggested_budget.min).toBeGreaterThan(district.suggested_budget.min);
    expect(hcm.suggested_budget.max).toBeGreaterThan(district.suggested_budget.max);
  });

  it('should answer an unknown place with an empty list', async () => {
    const res = await search('query=atlantis');
    expect(res.status).toBe(200);
    expect(res.body.data.locations).toEqual([]);
  });
});
