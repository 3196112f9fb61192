// GET /content/api/v1/stats/by-day over the real server: today's numbers counted live, past days
// from the roll-up job, and the query's errors. Posts, follows and reactions are made through the
// API; rows are backdated with SQL to make past days.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import { runJobNow } from '../../jobs/scheduler.js';
import { statsRollupJob } from '../../jobs/stats-rollup.js';
import { announceContentChanged } from '../helpers/behind-the-service.js';

const statsPath = '/content/api/v1/stats/by-day';
// The scheduler is off: the roll-up runs only when a test runs it.
const booted = useTestServer({ SCHEDULER_ENABLED: 'false' });
let server: TestServer;

const DAY_MS = 86_400_000;
const today = new Date().toISOString().slice(0, 10);
const day = (offset: number) => new Date(Date.parse(`${today}T00:00:00Z`) + offset * DAY_MS).toISOString().slice(0, 10);
const at = (offset: number, time = '12:00:00') => `${day(offset)}T${time}Z`;

const contentBody = (name: string) => ({
  price: 2_000_000_000,
  unit_price: 'VND',
  area: 55,
  unit_area: 'm2',
  video: { original_name: `${name}.mp4`, size: 1_048_576 },
  real_estate_info: { legal_certificates: 'pink_book', apartment_type: 'apartment', project_status: 'handed_over' },
  content_info: [{ lang: 'en', project_name: name, description: 'Two bedrooms', address: 'District 1, Ho Chi Minh City' }],
});

async function post(user: TestUser, name: string): Promise<string> {
  const res = await user.api.post('/content/api/v1/content', contentBody(name));
  if (res.status !== 201) throw new Error(`create content failed: ${res.status} ${res.text}`);
  const id: string = res.body.data.id;
  // Fixture: what the media worker writes when processing ends (CONTRACT data contract), so that
  // other users can see and like the item.
  await server.service.app.database.rows(sql`
    update contents set status = 'completed',
      video = video || ${JSON.stringify({ status: 'completed', playlist_path: `videos/${id}/hls/index.m3u8` })}::jsonb
    where id = ${id}`);
  await announceContentChanged(server, id);
  return id;
}
async function follow(from: TestUser, to: TestUser): Promise<void> {
  const res = await from.api.post(`/auth/api/v1/users/${to.userId}/follow`, undefined, { headers: { 'x-user-id': from.userId } });
  if (res.status !== 200 && res.status !== 201) throw new Error(`follow failed: ${res.status} ${res.text}`);
}
async function react(user: TestUser, contentId: string): Promise<void> {
  const res = await user.api.post(`/api/v1/content/${contentId}/reactions`);
  if (res.status !== 200 && res.status !== 201) throw new Error(`react failed: ${res.status} ${res.text}`);
}
const rows = <T>(q: ReturnType<typeof sql>) => server.service.app.database.rows<T>(q);

const stats = (user: TestUser, start: string, end: string, extra = '') => user.api.get(`${statsPath}?start_date=${start}&end_date=${end}${extra}`);

let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dave: TestUser;
let erin: TestUser;

beforeAll(async () => {
  server = booted.current;
  [alice, bob, carol, dave, erin] = await Promise.all([1, 2, 3, 4, 5].map(() => registerAndLogin(server)));

  // Today: alice posts twice; bob and carol follow her; she follows bob; bob and carol like her first post.
  const today1 = await post(alice, 'Today one');
  await post(alice, 'Today two');
  await follow(bob, alice);
  await follow(carol, alice);
  await follow(alice, bob);
  await react(bob, today1);
  await react(carol, today1);
  await react(alice, today1); // her own like: not a reaction "received"

  // Three days ago: a post (liked by erin ten days ago and by dave two days ago), and a post deleted since.
  const old = await post(alice, 'Old one');
  const deleted = await post(alice, 'Deleted one');
  await react(erin, old);
  await react(dave, old);
  await follow(dave, alice);
  await rows(sql`update contents set created_at = ${at(-3)}::timestamptz where id = ${old}`);
  await rows(sql`update contents set created_at = ${at(-3, '08:00:00')}::timestamptz, deleted_at = now() where id = ${deleted}`);
  await rows(sql`update content_reactions set created_at = ${at(-10)}::timestamptz where content_id = ${old} and user_id = ${erin.userId}`);
  await rows(sql`update content_reactions set created_at = ${at(-2, '23:59:59')}::timestamptz where content_id = ${old} and user_id = ${dave.userId}`);
  await rows(sql`update follows set created_at = ${at(-2, '00:00:00')}::timestamptz where follower_id = ${dave.userId} and following_id = ${alice.userId}`);
});
const noViews = { views: 0, watch_seconds: 0, leads: 0 };
const zero = { posts: 0, followers: 0, following: 0, reactions: 0, ...noViews };
const expectedAlice = () => ({
  days: [
    { date: `${day(-4)}T00:00:00.000Z`, ...zero, reactions_total: 1 },
    { date: `${day(-3)}T00:00:00.000Z`, ...zero, posts: 1, reactions_total: 1 },
    { date: `${day(-2)}T00:00:00.000Z`, ...zero, followers: 1, reactions: 1, reactions_total: 2 },
    { date: `${day(-1)}T00:00:00.000Z`, ...zero, reactions_total: 2 },
    { date: `${day(0)}T00:00:00.000Z`, ...noViews, posts: 2, followers: 2, following: 1, reactions: 2, reactions_total: 4 },
  ],
  followers_growth: 3,
  following_growth: 1,
  reactions_growth: 3,
});

describe('GET /stats/by-day: failures', () => {
  it('should fail without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).get(`${statsPath}?start_date=${day(0)}&end_date=${day(0)}`), 401);
  });

  it("should fail with 403 for another user's statistics without read:any_stats", async () => {
    expectErrorEnvelope(await stats(bob, day(0), day(0), `&user_id=${alice.userId}`), 403);
  });

  it('should fail with 403 without read:any_stats whether or not the user exists', async () => {
    expectErrorEnvelope(await stats(bob, day(0), day(0), '&user_id=00000000-0000-4000-8000-000000000000'), 403);
  });

  it('should fail with 404 for an unknown user (for a caller allowed to look)', async () => {
    const admin = await loginAdmin(server);
    expectErrorEnvelope(await stats(admin, day(0), day(0), '&user_id=00000000-0000-4000-8000-000000000000'), 404, 'stats.error');
  });

  it('should fail with dates out of order', async () => {
    const err = expectErrorEnvelope(await stats(alice, day(0), day(-1)), 400, 'stats.error');
    expect(err.details?.field).toBe('end_date');
  });

  it('should fail with more than 366 days (367 and 400)', async () => {
    expectErrorEnvelope(await stats(alice, '2024-01-01', '2025-01-01'), 400, 'stats.error');
    expectErrorEnvelope(await stats(alice, day(-399), day(0)), 400, 'stats.error');
  });

  it('should fail with malformed dates, naming the field', async () => {
    for (const [start, end, field] of [
      ['2024-13-01', '2024-12-31', 'start_date'],
      ['2024-02-01', '2024-02-30', 'end_date'],
      ['20240101', '2024-01-02', 'start_date'],
      ['2024-01-01', '2024-01-02T00:00:00Z', 'end_date'],
      ['yesterday', '2024-01-02', 'start_date'],
    ]) {
      const err = expectErrorEnvelope(await stats(alice, start, end), 400);
      expect(err.details?.field).toBe(field);
    }
  });

  it('should fail without end_date', async () => {
    expect(expectErrorEnvelope(await alice.api.get(`${statsPath}?start_date=2024-01-01`), 400).details?.field).toBe('end_date');
  });

  it('should fail with a user_id that is not a user id', async () => {
    expect(expectErrorEnvelope(await stats(alice, day(0), day(0), '&user_id=42'), 400).details?.field).toBe('user_id');
  });
});

describe('whose statistics', () => {
  it('user_id defaults to the caller; the own id is allowed', async () => {
    const own = await stats(alice, day(0), day(0), `&user_id=${alice.userId}`);
    expect(own.status).toBe(200);
    expect(own.body.data.days[0].posts).toBe(2);
  });

  it("an administrator (read:any_stats) reads another user's statistics", async () => {
    const admin = await loginAdmin(server);
    const res = await stats(admin, day(-4), day(0), `&user_id=${alice.userId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.days[1].posts).toBe(1);
  });
});

describe('ranges', () => {
  it('accepts 366 days (a leap year)', async () => {
    const ok = await stats(alice, '2024-01-01', '2024-12-31');
    expect(ok.status).toBe(200);
    expect(ok.body.data.days).toHaveLength(366);
    expect(ok.body.data.days[365].date).toBe('2024-12-31T00:00:00.000Z');
  });
});

describe('statistics of a day with posts, follows and reactions', () => {
  it('counts every day of the range live before any roll-up, zeros included', async () => {
    const res = await stats(alice, day(-4), day(0));
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(typeof res.body.message).toBe('string');
    expect(res.body.data).toEqual(expectedAlice());
  });

  it('counts from the other side too: bob follows and is followed today', async () => {
    const res = await stats(bob, day(0), day(0));
    expect(res.body.data.days).toEqual([
      { date: `${day(0)}T00:00:00.000Z`, ...noViews, posts: 0, followers: 1, following: 1, reactions: 0, reactions_total: 0 },
    ]);
    expect(res.body.data).toMatchObject({ followers_growth: 1, following_growth: 1, reactions_growth: 0 });
  });

  it('the roll-up job writes finished days into daily_stats and the answer stays the same', async () => {
    expect(await runJobNow(server.service, statsRollupJob)).toBe('ran');
    const stored = await rows<{ day: string; posts: number; followers: number; following: number; reactions: number }>(sql`
      select day::text as day, posts, followers, following, reactions from daily_stats where user_id = ${alice.userId} order by day`);
    expect(stored).toEqual([
      { day: day(-10), posts: 0, followers: 0, following: 0, reactions: 1 },
      { day: day(-3), posts: 1, followers: 0, following: 0, reactions: 0 },
      { day: day(-2), posts: 0, followers: 1, following: 0, reactions: 1 },
    ]);
    const [mark] = await rows<{ day: string }>(sql`select rolled_through::text as day from daily_stats_watermark`);
    expect(mark.day).toBe(day(-1));
    const [run] = await rows<{ last_success_at: Date | null; runs: number }>(sql`
      select last_success_at, runs from scheduled_job_runs where job_name = 'stats-rollup'`);
    expect(run.last_success_at).not.toBeNull();
    expect(run.runs).toBe(1);

    expect((await stats(alice, day(-4), day(0))).body.data).toEqual(expectedAlice());
  });

  it('past days are read from the roll-up while today stays live', async () => {
    // dave unfollows (his follow was two days ago) and bob unfollows today.
    for (const who of [dave, bob]) {
      const res = await who.api.delete(`/auth/api/v1/users/${alice.userId}/follow`, { headers: { 'x-user-id': who.userId } });
      expect(res.status).toBe(200);
    }
    const data = (await stats(alice, day(-4), day(0))).body.data;
    expect(data.days[2].followers).toBe(1); // rolled-up snapshot of two days ago
    expect(data.days[4].followers).toBe(1); // live: carol still follows, bob no longer does
    expect(data.followers_growth).toBe(2);
  });

  it('running the roll-up again changes nothing (already rolled through yesterday)', async () => {
    expect(await runJobNow(server.service, statsRollupJob)).toBe('ran');
    const [n] = await rows<{ n: number }>(sql`select count(*)::int as n from daily_stats where user_id = ${alice.userId}`);
    expect(n.n).toBe(3);
  });

  it('reactions_total before the range comes from earlier days', async () => {
    const data = (await stats(alice, day(-10), day(-9))).body.data;
    expect(data.days.map((d: { reactions_total: number }) => d.reactions_total)).toEqual([1, 1]);
    const later = (await stats(alice, day(-1), day(-1))).body.data;
    expect(later.days[0].reactions_total).toBe(2);
  });

  it('future days are zeros', async () => {
    const data = (await stats(alice, day(1), day(2))).body.data;
    expect(data.days).toHaveLength(2);
    expect(data.days[1]).toEqual({ date: `${day(2)}T00:00:00.000Z`, ...zero, reactions_total: 4 });
  });
});
