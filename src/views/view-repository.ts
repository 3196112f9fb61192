// The SQL of views, watch time and leads (migration 0038; docs/analytics.md). The flush of a batch
// of aggregated reports is one statement, whatever the batch holds.
import { sql, type SQL } from 'drizzle-orm';
import { Repository } from '../db/repository.js';

/** One item-day of a batch: sums of this node's reports since the previous flush. */
export interface DayDelta {
  contentId: string;
  day: string;
  views: number;
  watchMs: number;
  /** reached[k]: views that reached (k+1) tenths of the video. */
  reached: number[];
  /** Views by source, in VIEW_SOURCES order. */
  bySource: number[];
}

export interface ViewerRow {
  contentId: string;
  day: string;
  viewerKey: string;
}

export interface CampaignDelta {
  campaignId: string;
  contentId: string;
  views: number;
  watchMs: number;
}

export interface CampaignViewerRow {
  campaignId: string;
  contentId: string;
  viewerKey: string;
}

export interface ViewBatch {
  days: DayDelta[];
  viewers: ViewerRow[];
  campaigns: CampaignDelta[];
  campaignViewers: CampaignViewerRow[];
}

export interface DayRow {
  day: string;
  views: number;
  unique_viewers: number;
  watch_ms: number;
  impressions: number;
  leads: number;
  reached: number[];
  by_source: number[];
}

export interface CampaignViewFigures {
  campaignId: string;
  views: number;
  watchSeconds: number;
  reach: number;
  leads: number;
}

const DECILES = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
const SOURCE_COLUMNS = ['s_feed', 's_search', 's_map', 's_profile', 's_campaign', 's_link', 's_live'];
const R = DECILES.map((p) => `r${p}`);
const S = SOURCE_COLUMNS;
const list = (names: string[], prefix = '') => names.map((n) => `${prefix}${n}`).join(', ');
const typed = (names: string[]) => names.map((n) => `${n} int`).join(', ');
const added = (names: string[]) => names.map((n) => `${n} = t.${n} + excluded.${n}`).join(', ');
const zeroed = (names: string[]) => names.map((n) => `coalesce(dd.${n}, 0) as ${n}`).join(', ');

/** The whole flush, written once: its columns come from the lists above. */
const FLUSH_TEXT = `
  with dd as (
    select x.* from jsonb_to_recordset($1::jsonb) as x(c uuid, d date, v int, w bigint, ${typed(R)}, ${typed(S)})
    where exists (select 1 from contents where id = x.c)
  ),
  nv as (
    insert into content_view_viewers (content_id, day, viewer_key)
    select x.c, x.d, x.k from jsonb_to_recordset($2::jsonb) as x(c uuid, d date, k text)
    where exists (select 1 from contents where id = x.c)
    on conflict do nothing returning content_id, day
  ),
  nvc as (select content_id as c, day as d, count(*)::int as n from nv group by 1, 2),
  j as (
    select coalesce(dd.c, nvc.c) as c, coalesce(dd.d, nvc.d) as d, coalesce(dd.v, 0) as v, coalesce(nvc.n, 0) as u,
           coalesce(dd.w, 0) as w, ${zeroed(R)}, ${zeroed(S)}
    from dd full join nvc on nvc.c = dd.c and nvc.d = dd.d
  ),
  days as (
    insert into content_view_days as t (content_id, day, views, unique_viewers, watch_ms, ${list(R)}, ${list(S)})
    select c, d, v, u, w, ${list(R)}, ${list(S)} from j
    on conflict (content_id, day) do update set views = t.views + excluded.views,
      unique_viewers = t.unique_viewers + excluded.unique_viewers, watch_ms = t.watch_ms + excluded.watch_ms,
      ${added(R)}, ${added(S)}
  ),
  counts as (
    update contents set view_count = contents.view_count + s.v
    from (select c, sum(v)::int as v from dd group by c having sum(v) > 0) s where contents.id = s.c
    returning contents.id, contents.view_count
  ),
  cd as (
    select x.id, sum(x.v)::int as v, sum(x.w)::bigint as w from jsonb_to_recordset($3::jsonb) as x(id uuid, c uuid, v int, w bigint)
    where exists (select 1 from campaigns where id = x.id and video_id = x.c) group by x.id
  ),
  cv as (
    insert into campaign_viewers (campaign_id, viewer_key)
    select x.id, x.k from jsonb_to_recordset($4::jsonb) as x(id uuid, c uuid, k text)
    where exists (select 1 from campaigns where id = x.id and video_id = x.c)
    on conflict do nothing returning campaign_id
  ),
  cvc as (select campaign_id as id, count(*)::int as n from cv group by 1),
  ct as (
    insert into campaign_view_totals as t (campaign_id, views, watch_ms, reach)
    select coalesce(cd.id, cvc.id), coalesce(cd.v, 0), coalesce(cd.w, 0), coalesce(cvc.n, 0)
    from cd full join cvc on cvc.id = cd.id
    on conflict (campaign_id) do update set views = t.views + excluded.views, watch_ms = t.watch_ms + excluded.watch_ms,
      reach = t.reach + excluded.reach
  )
  select id as "contentId", view_count from counts`;

/** FLUSH_TEXT with its $n bound to `params` (drizzle binds values only inside its own template). */
function bindText(text: string, params: unknown[]): SQL {
  const parts = text.split(/\$(\d)/);
  const chunks: SQL[] = [];
  parts.forEach((part, i) => chunks.push(i % 2 === 0 ? sql.raw(part) : sql`${params[Number(part) - 1]}`));
  return sql.join(chunks, sql.raw(''));
}

export class ViewRepository extends Repository {
  /** Adds a batch; answers the new view_count of every item whose views moved. */
  async flush(batch: ViewBatch): Promise<{ contentId: string; view_count: number }[]> {
    const days = batch.days.map((d) => {
      const row: Record<string, unknown> = { c: d.contentId, d: d.day, v: d.views, w: Math.round(d.watchMs) };
      R.forEach((name, i) => (row[name] = d.reached[i]));
      S.forEach((name, i) => (row[name] = d.bySource[i]));
      return row;
    });
    const viewers = batch.viewers.map((v) => ({ c: v.contentId, d: v.day, k: v.viewerKey }));
    const campaigns = batch.campaigns.map((c) => ({ id: c.campaignId, c: c.contentId, v: c.views, w: Math.round(c.watchMs) }));
    const campaignViewers = batch.campaignViewers.map((c) => ({ id: c.campaignId, c: c.contentId, k: c.viewerKey }));
    return this.db.rows(bindText(FLUSH_TEXT, [JSON.stringify(days), JSON.stringify(viewers), JSON.stringify(campaigns), JSON.stringify(campaignViewers)]));
  }

  /** The roll-up of one item, fromDay..toDay (both included); days without a row are absent. */
  async days(contentId: string, fromDay: string, toDay: string): Promise<DayRow[]> {
    return this.db.rows<DayRow>(sql`
      select day::text as day, views, unique_viewers, watch_ms::float8 as watch_ms, impressions, leads,
             array[${sql.raw(list(R))}] as reached, array[${sql.raw(list(S))}] as by_source
      from content_view_days where content_id = ${contentId} and day >= ${fromDay}::date and day <= ${toDay}::date`);
  }

  /** Adds impressions per item and day (campaign delivery's counts). */
  async addImpressions(rows: { contentId: string; day: string; count: number }[]): Promise<void> {
    if (rows.length === 0) return;
    const data = JSON.stringify(rows.map((r) => ({ c: r.contentId, d: r.day, n: r.count })));
    await this.db.rows(sql`
      insert into content_view_days as t (content_id, day, impressions)
      select x.c, x.d, sum(x.n)::int from jsonb_to_recordset(${data}::jsonb) as x(c uuid, d date, n int)
      where exists (select 1 from contents where id = x.c) group by x.c, x.d
      on conflict (content_id, day) do update set impressions = t.impressions + excluded.impressions`);
  }

  async campaignFigures(campaignIds: string[]): Promise<CampaignViewFigures[]> {
    if (campaignIds.length === 0) return [];
    return this.db.rows<CampaignViewFigures>(sql`
      select campaign_id as "campaignId", views, (watch_ms / 1000)::int as "watchSeconds", reach, leads
      from campaign_view_totals where campaign_id = any(${`{${campaignIds.join(',')}}`}::uuid[])`);
  }

  /**
   * Records a lead (the room opened on the item by `viewerId`) unless that viewer already is one;
   * answers whether it was new. A new lead counts on its day and on the item's campaigns that
   * reached the viewer.
   */
  async addLead(contentId: string, viewerId: string, roomId: string, day: string): Promise<boolean> {
    const [row] = await this.db.rows<{ added: boolean }>(sql`
      with l as (
        insert into content_leads (content_id, viewer_id, room_id) values (${contentId}, ${viewerId}, ${roomId})
        on conflict do nothing returning content_id
      ),
      d as (
        insert into content_view_days as t (content_id, day, leads) select content_id, ${day}::date, 1 from l
        on conflict (content_id, day) do update set leads = t.leads + 1
      ),
      c as (
        insert into campaign_view_totals as t (campaign_id, leads)
        select v.campaign_id, 1 from campaign_viewers v join campaigns k on k.id = v.campaign_id
        where exists (select 1 from l) and k.video_id = ${contentId} and v.viewer_key = ${`u:${viewerId}`}
        on conflict (campaign_id) do update set leads = t.leads + 1
      )
      select exists (select 1 from l) as added`);
    return row.added;
  }

  async hasLeadToTell(roomId: string): Promise<boolean> {
    const rows = await this.db.rows(sql`select 1 from content_leads where room_id = ${roomId} and notified_at is null limit 1`);
    return rows.length > 0;
  }

  /** The lead a room is, not yet told to the owner: marked told, answered once. */
  /** The room's leads not yet told (one direct room may carry leads on several of the owner's items), now marked told. */
  claimLeadNotices(roomId: string): Promise<{ contentId: string; viewerId: string }[]> {
    return this.db.rows<{ contentId: string; viewerId: string }>(sql`
      update content_leads set notified_at = now() where room_id = ${roomId} and notified_at is null
      returning content_id as "contentId", viewer_id as "viewerId"`);
  }

  /**
   * Deletes up to `limit` rows of distinct viewers of days before `day` (closed days: their
   * unique_viewers is counted already and no flush adds to them); answers how many went.
   */
  async purgeViewersBefore(day: string, limit: number): Promise<number> {
    const [row] = await this.db.rows<{ n: number }>(sql`
      with gone as (
        delete from content_view_viewers where (content_id, day, viewer_key) in (
          select content_id, day, viewer_key from content_view_viewers where day < ${day}::date limit ${limit})
        returning 1)
      select count(*)::int as n from gone`);
    return row.n;
  }

  /** Erasure (CONTRACT §22): the viewer's rows go; the counts they made stay. */
  async forgetViewer(userId: string): Promise<void> {
    const key = `u:${userId}`;
    await this.db.rows(sql`delete from content_view_viewers where viewer_key = ${key}`);
    await this.db.rows(sql`delete from campaign_viewers where viewer_key = ${key}`);
    await this.db.rows(sql`delete from content_leads where viewer_id = ${userId}`);
  }
}
