// Views, watch time, analytics and leads of CONTRACT §26 (docs/analytics.md).
//
// A playback report is judged at once (the item, the viewer, the elapsed-time cap, the 3 s / 30 %
// rule, one view per viewer, item and hour: PlaybackStore) and its sums go to this node's buffer
// (ViewIngest), which one statement a second writes into the daily roll-up. Nothing per report
// touches the database while the item is in the read model's cache.
//
// Hooks for campaign delivery (src/campaigns/):
// - `recordImpressions(rows: {contentId, day, count}[])`: adds impressions to the item's day
//   (content_view_days.impressions), what analytics shows as `impressions`;
// - `campaignViewFigures(campaignIds)`: per campaign, the views, watch seconds, reach (distinct
//   viewers) and leads its playbacks brought (reports with source `campaign` and its
//   `campaign_id`; leads from viewers it reached).
import { can, type Caller } from '../auth/index.js';
import type { AppContext } from '../context.js';
import type { ContentRepository } from '../content/index.js';
import type { ContentService } from '../content/index.js';
import { contentNotFound } from '../content/index.js';
import type { NotificationService } from '../notifications/index.js';
import { AppError, badRequest } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { serviceUnavailable } from '../shared/unavailable.js';
import type { ViewerKeys, Watcher } from '../shared/viewer-key.js';
import { addDays, dayOf, midnightIso } from '../stats/index.js';
import { checkDayRange } from '../stats/index.js';
import { ViewIngest } from './ingest.js';
import type { PlaybackStore } from './playback-store.js';
import { VIEW_SOURCES, type AnalyticsData, type PlaybackAnswer, type PlaybackReport, type TotalFigures } from './schemas.js';
import type { CampaignViewFigures, DayRow, ViewRepository } from './view-repository.js';

export const ANALYTICS_PERMISSION = 'read:analytics';
/** A view: 3 s watched or 30 % of the video, whichever is less (CONTRACT §26). */
const VIEW_SECONDS = 3;
const VIEW_SHARE = 0.3;
const HOUR_MS = 3_600_000;
/** How often the cached copies of items whose views moved are dropped (view_count lags at most this, plus a flush). */
export const COUNT_REFRESH_MS = 5_000;

/** Rows of distinct viewers deleted per statement of the daily purge (bounded statements, short locks). */
const PURGE_BATCH = 5_000;

/** Who is watching: a user, or (without a token) the client's address as the rate limits count it. */
export type Viewer = Watcher;

const round1 = (n: number) => Math.round(n * 10) / 10;

export class ViewService {
  readonly ingest: ViewIngest;
  private readonly movedCounts = new Set<string>();
  private refreshTimer: NodeJS.Timeout | null = null;
  /** Set by `stop`: a report that comes later (a kept-alive connection) is refused, never acknowledged and lost. */
  private stopped = false;

  constructor(
    private readonly app: AppContext,
    private readonly repository: ViewRepository,
    private readonly contents: ContentRepository,
    private readonly content: ContentService,
    private readonly playbacks: PlaybackStore,
    private readonly notifications: NotificationService,
    private readonly viewerKeys: ViewerKeys,
    /** Milliseconds since the epoch: the wall clock, or a test's. */
    private readonly now: () => number = Date.now,
  ) {
    this.ingest = new ViewIngest(repository, app.log, (counts) => {
      for (const c of counts) {
        this.movedCounts.add(c.contentId);
        app.events.publish('views.changed', c);
      }
    });
  }

  start(): void {
    this.ingest.start();
    this.refreshTimer = setInterval(() => this.refreshCounts(), COUNT_REFRESH_MS);
    this.refreshTimer.unref();
  }

  /** Writes every buffered report (SIGTERM): the composition root calls it before the database closes. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.refreshTimer = null;
    await this.ingest.stop();
  }

  /** Writes what is buffered now (tests; the SIGTERM path is `stop`). */
  flush(): Promise<void> {
    return this.ingest.flush();
  }

  private refreshCounts(): void {
    if (this.movedCounts.size === 0) return;
    const contentIds = [...this.movedCounts];
    this.movedCounts.clear();
    this.app.events.publish('views.counted', { contentIds });
  }

  /** A playback report (REST or `content:watch`): 404 for an item that is missing, unpublished or hidden. */
  async report(caller: Caller | null, viewer: Viewer, contentId: string, report: PlaybackReport): Promise<PlaybackAnswer> {
    if (this.stopped) throw serviceUnavailable();
    const row = await this.publishedItem(caller, contentId);
    const nowMs = this.now();
    const duration = row.video.duration ?? 0;
    const viewerKey = this.viewerKeys.of(viewer);
    const owner = 'userId' in viewer && viewer.userId === row.uploader_id;
    const outcome = await this.playbacks.step({
      playbackKey: `${viewerKey}:${contentId}:${report.playback_id}`,
      hourKey: `${viewerKey}:${contentId}:${Math.floor(nowMs / HOUR_MS)}`,
      nowMs,
      watched: report.watched,
      threshold: duration > 0 ? Math.min(VIEW_SECONDS, VIEW_SHARE * duration) : VIEW_SECONDS,
      duration,
      owner,
    });
    // Stopped meanwhile: the final flush may have run; what is not buffered is not acknowledged.
    if (this.stopped) throw serviceUnavailable();
    // The owner's own watching is neither a view nor watch time.
    if (!owner) {
      this.ingest.add({
        contentId,
        day: dayOf(new Date(nowMs)),
        viewerKey,
        source: report.source,
        campaignId: report.campaign_id,
        addedSeconds: outcome.added,
        newlyCounted: outcome.newlyCounted,
        decileBefore: outcome.decileBefore,
        decileAfter: outcome.decileAfter,
      });
    }
    return { counted: outcome.counted };
  }

  private async publishedItem(caller: Caller | null, contentId: string) {
    if (!isUuid(contentId)) throw contentNotFound();
    try {
      const row = await this.content.findVisible(caller, contentId);
      if (row.status !== 'completed') throw contentNotFound();
      return row;
    } catch (err) {
      // Not shown to this caller (not published, held, removed): the same 404 as missing.
      if (err instanceof AppError && (err.status === 401 || err.status === 404)) throw contentNotFound();
      throw err;
    }
  }

  /** Adds impressions per item and day (campaign delivery calls it; see the top of this file). */
  recordImpressions(rows: { contentId: string; day: string; count: number }[]): Promise<void> {
    return this.repository.addImpressions(rows);
  }

  /** Views, watch seconds, reach and leads per campaign (campaign delivery reads it; see the top of this file). */
  campaignViewFigures(campaignIds: string[]): Promise<CampaignViewFigures[]> {
    return this.repository.campaignFigures(campaignIds.filter(isUuid));
  }

  /** The item's analytics (owner, or staff with read:analytics; 404 for anyone else). */
  async analytics(caller: Caller, contentId: string, startDate: string, endDate: string): Promise<AnalyticsData> {
    checkDayRange(startDate, endDate, 'analytics');
    const item = isUuid(contentId) ? await this.contents.findMedia(contentId) : null;
    if (!item || (item.uploader_id !== caller.userId && !can(caller, ANALYTICS_PERMISSION))) throw contentNotFound();
    const byDay = new Map<string, DayRow>();
    for (const row of await this.repository.days(contentId, startDate, endDate)) byDay.set(row.day, row);
    const totals: TotalFigures = { views: 0, unique_viewers: 0, watch_seconds: 0, avg_view_seconds: 0, impressions: 0, leads: 0 };
    let watchMs = 0;
    const reached = new Array<number>(10).fill(0);
    const sources = new Array<number>(VIEW_SOURCES.length).fill(0);
    const days: AnalyticsData['days'] = [];
    for (let day = startDate; day <= endDate; day = addDays(day, 1)) {
      const row = byDay.get(day);
      const ms = Number(row?.watch_ms ?? 0);
      const views = row?.views ?? 0;
      days.push({
        date: midnightIso(day),
        views,
        unique_viewers: row?.unique_viewers ?? 0,
        watch_seconds: Math.round(ms / 1000),
        avg_view_seconds: views > 0 ? round1(ms / 1000 / views) : 0,
        impressions: row?.impressions ?? 0,
        leads: row?.leads ?? 0,
      });
      if (!row) continue;
      totals.views += views;
      totals.unique_viewers += row.unique_viewers;
      totals.impressions += row.impressions;
      totals.leads += row.leads;
      watchMs += ms;
      row.reached.forEach((n, i) => (reached[i] += n));
      row.by_source.forEach((n, i) => (sources[i] += n));
    }
    totals.watch_seconds = Math.round(watchMs / 1000);
    totals.avg_view_seconds = totals.views > 0 ? round1(watchMs / 1000 / totals.views) : 0;
    return {
      days,
      totals,
      // A view counted on the range's first day may have reached its tenths the day before: capped at 1.
      retention: reached.map((n) => (totals.views > 0 ? Math.min(1, Math.round((n / totals.views) * 1000) / 1000) : 0)),
      sources: Object.fromEntries(VIEW_SOURCES.map((s, i) => [s, sources[i]])) as AnalyticsData['sources'],
    };
  }

  /**
   * Checks the `contentId` of a room about to be opened: an item the caller may see whose owner is
   * among the members (or is the caller); 400 on `contentId` otherwise.
   */
  async checkLeadItem(caller: Caller, contentId: string, memberIds: string[]): Promise<{ ownerId: string }> {
    const refused = () =>
      badRequest('chat.error.invalid_content', 'contentId must name an item you may see, whose owner is a member', {
        field: 'contentId',
        constraint: 'a visible item whose owner is in memberIds',
      });
    if (!isUuid(contentId)) throw refused();
    let row;
    try {
      row = await this.content.findVisible(caller, contentId);
    } catch (err) {
      if (err instanceof AppError && err.status < 500) throw refused();
      throw err;
    }
    if (row.uploader_id !== caller.userId && !memberIds.includes(row.uploader_id)) throw refused();
    return { ownerId: row.uploader_id };
  }

  /** A room opened on an item by someone other than its owner: a lead, once per viewer and item. */
  async openLead(viewerId: string, ownerId: string, contentId: string, roomId: string): Promise<void> {
    if (viewerId === ownerId) return;
    await this.repository.addLead(contentId, viewerId, roomId, dayOf(new Date(this.now())));
  }

  /** A message was sent in a room: the room's leads not yet told are told to each item's owner (`lead.new`). */
  async messageSent(roomId: string): Promise<void> {
    // Most rooms are no lead, or one told already: one read answers them.
    if (!(await this.repository.hasLeadToTell(roomId))) return;
    await this.app.database.transaction(async (tx) => {
      for (const lead of await this.repository.in(tx).claimLeadNotices(roomId)) {
        const item = await this.contents.in(tx).findMedia(lead.contentId);
        if (!item) continue;
        await this.notifications.notify(tx, {
          userId: item.uploader_id,
          type: 'lead.new',
          actorId: lead.viewerId,
          subject: { type: 'content', id: lead.contentId },
          data: { contentId: lead.contentId, roomId },
          dedupeKey: `lead:${lead.contentId}:${lead.viewerId}`,
        });
      }
    });
  }

  /**
   * Forgets who viewed on closed days (CONTRACT §26 keeps only the counts): the rows of distinct
   * viewers of days before yesterday (UTC; yesterday stays for a flush that straddles midnight).
   * Daily, by the `view-viewers-purge` job; answers how many rows went.
   */
  async purgeClosedDays(): Promise<number> {
    const before = addDays(dayOf(new Date(this.now())), -1);
    let total = 0;
    for (;;) {
      const gone = await this.repository.purgeViewersBefore(before, PURGE_BATCH);
      total += gone;
      if (gone < PURGE_BATCH) return total;
    }
  }

  /** Erasure (CONTRACT §22): the viewer's rows lose them; the counts stay. */
  forgetViewer(userId: string): Promise<void> {
    return this.repository.forgetViewer(userId);
  }
}
