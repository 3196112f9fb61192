// The daily purge of who viewed on closed days (jobs/view-viewers-purge.ts): the rows of distinct
// viewers of days before yesterday go, today's and yesterday's stay, and the days' counts
// (views, unique_viewers) stay as they were.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { bootServer, type TestServer } from '../helpers/server.js';
import { addDays } from '../../src/stats/days.js';
import { viewViewersPurgeJob } from '../../jobs/view-viewers-purge.js';
import { CONTENTS, eventually, publishedVideo, report, sendReport, today } from './fixtures.js';

describe('forgetting the viewers of closed days', () => {
  let server: TestServer;
  let owner: TestUser;
  let viewer: TestUser;
  let contentId: string;
  let offsetMs = 0;
  const day = today();

  const viewerRows = () =>
    server.service.app.database.rows<{ day: string; n: number }>(sql`
      select to_char(day, 'YYYY-MM-DD') as day, count(*)::int as n from content_view_viewers where content_id = ${contentId} group by day order by day`);
  const dayRows = () =>
    server.service.app.database.rows<{ day: string; views: number; unique_viewers: number }>(sql`
      select to_char(day, 'YYYY-MM-DD') as day, views, unique_viewers from content_view_days where content_id = ${contentId} order by day`);

  beforeAll(async () => {
    server = await bootServer({}, { viewClock: () => Date.now() + offsetMs });
    [owner, viewer] = await Promise.all([registerAndLogin(server), registerAndLogin(server)]);
    contentId = await publishedVideo(server, owner, 10);
    const playback = report();
    await sendReport(viewer.api, contentId, { ...playback, watched: 2 });
    offsetMs += 4_000;
    await sendReport(viewer.api, contentId, { ...playback, position: 4, watched: 4 });
    await eventually(viewerRows, (rows) => rows.length === 1);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('should delete the viewers of days before yesterday and keep every count', async () => {
    const db = server.service.app.database;
    // Today's viewer row and day copied to three days ago and to yesterday.
    for (const back of [3, 1]) {
      const past = addDays(day, -back);
      await db.rows(
        sql`insert into content_view_viewers (content_id, day, viewer_key) select content_id, ${past}::date, viewer_key from content_view_viewers where content_id = ${contentId} and day = ${day}::date`,
      );
      await db.rows(sql`insert into content_view_days (content_id, day, views, unique_viewers) values (${contentId}, ${past}::date, 1, 1)`);
    }
    const daysBefore = await dayRows();
    expect((await viewerRows()).map((r) => r.day)).toEqual([addDays(day, -3), addDays(day, -1), day]);

    await viewViewersPurgeJob.run(server.service, new Date());

    expect((await viewerRows()).map((r) => r.day)).toEqual([addDays(day, -1), day]);
    expect(await dayRows()).toEqual(daysBefore);
    // The owner's analytics still show the closed day's figures.
    const res = await owner.api.get(`${CONTENTS}/${contentId}/analytics?start_date=${addDays(day, -3)}&end_date=${day}`);
    expect(res.status).toBe(200);
    expect(res.body.data.totals.views).toBe(3);
  });

  it('should do nothing the second time', async () => {
    const before = await viewerRows();
    await viewViewersPurgeJob.run(server.service, new Date());
    expect(await viewerRows()).toEqual(before);
  });
});
