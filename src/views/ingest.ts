// This node's buffer of judged playback reports: sums per item and day, the viewers to remember,
// the campaigns' shares. A flush every second hands the whole buffer to one statement
// (ViewRepository.flush), so a report costs no statement of its own; a SIGKILL loses at most what
// arrived since the last flush (≤ 1 s, plus a flush under way). A failed flush keeps its batch
// and tries again with the next one.
import type { Logger } from '../shared/logger.js';
import type { CampaignDelta, DayDelta, ViewBatch, ViewRepository } from './view-repository.js';
import { VIEW_SOURCES, type ViewSource } from './schemas.js';

export const FLUSH_INTERVAL_MS = 1_000;

/** One judged report, as the buffer takes it. */
export interface JudgedReport {
  contentId: string;
  day: string;
  viewerKey: string;
  source: ViewSource;
  campaignId: string | undefined;
  addedSeconds: number;
  newlyCounted: boolean;
  decileBefore: number;
  decileAfter: number;
}

const SOURCE_INDEX = new Map(VIEW_SOURCES.map((s, i) => [s, i]));

class Buffer {
  days = new Map<string, DayDelta>();
  viewers = new Map<string, { contentId: string; day: string; viewerKey: string }>();
  campaigns = new Map<string, CampaignDelta>();
  campaignViewers = new Map<string, { campaignId: string; contentId: string; viewerKey: string }>();

  get empty(): boolean {
    return this.days.size === 0 && this.viewers.size === 0 && this.campaigns.size === 0 && this.campaignViewers.size === 0;
  }

  add(r: JudgedReport): void {
    const dayKey = `${r.contentId}|${r.day}`;
    let day = this.days.get(dayKey);
    if (!day) {
      day = {
        contentId: r.contentId,
        day: r.day,
        views: 0,
        watchMs: 0,
        reached: new Array<number>(10).fill(0),
        bySource: new Array<number>(VIEW_SOURCES.length).fill(0),
      };
      this.days.set(dayKey, day);
    }
    day.watchMs += r.addedSeconds * 1000;
    if (r.newlyCounted) {
      day.views += 1;
      day.bySource[SOURCE_INDEX.get(r.source)!] += 1;
      this.viewers.set(`${dayKey}|${r.viewerKey}`, { contentId: r.contentId, day: r.day, viewerKey: r.viewerKey });
    }
    for (let k = r.decileBefore; k < r.decileAfter; k++) day.reached[k] += 1;
    if (r.campaignId && r.source === 'campaign') {
      const key = `${r.campaignId}|${r.contentId}`;
      let c = this.campaigns.get(key);
      if (!c) this.campaigns.set(key, (c = { campaignId: r.campaignId, contentId: r.contentId, views: 0, watchMs: 0 }));
      c.watchMs += r.addedSeconds * 1000;
      if (r.newlyCounted) {
        c.views += 1;
        this.campaignViewers.set(`${key}|${r.viewerKey}`, { campaignId: r.campaignId, contentId: r.contentId, viewerKey: r.viewerKey });
      }
    }
  }

  /** Takes an older buffer's content back (a flush that failed). */
  merge(older: Buffer): void {
    for (const [key, d] of older.days) {
      const mine = this.days.get(key);
      if (!mine) this.days.set(key, d);
      else {
        mine.views += d.views;
        mine.watchMs += d.watchMs;
        d.reached.forEach((n, i) => (mine.reached[i] += n));
        d.bySource.forEach((n, i) => (mine.bySource[i] += n));
      }
    }
    for (const [key, v] of older.viewers) this.viewers.set(key, v);
    for (const [key, c] of older.campaigns) {
      const mine = this.campaigns.get(key);
      if (!mine) this.campaigns.set(key, c);
      else {
        mine.views += c.views;
        mine.watchMs += c.watchMs;
      }
    }
    for (const [key, v] of older.campaignViewers) this.campaignViewers.set(key, v);
  }

  batch(): ViewBatch {
    return {
      days: [...this.days.values()],
      viewers: [...this.viewers.values()],
      campaigns: [...this.campaigns.values()],
      campaignViewers: [...this.campaignViewers.values()],
    };
  }
}

export class ViewIngest {
  private buffer = new Buffer();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly repository: ViewRepository,
    private readonly log: Logger,
    /** Hears the new view_count of the items a flush moved. */
    private readonly onCounts: (counts: { contentId: string; view_count: number }[]) => void,
  ) {}

  add(report: JudgedReport): void {
    this.buffer.add(report);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  /** Writes what is buffered (after a flush under way); resolves once written or kept for later. */
  flush(): Promise<void> {
    const previous = this.running ?? Promise.resolve();
    const next = previous.then(() => this.flushOnce());
    this.running = next.finally(() => {
      if (this.running === next) this.running = null;
    });
    return next;
  }

  private async flushOnce(): Promise<void> {
    if (this.buffer.empty) return;
    const taken = this.buffer;
    this.buffer = new Buffer();
    try {
      const counts = await this.repository.flush(taken.batch());
      if (counts.length > 0) this.onCounts(counts);
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'views: a flush failed; its reports wait for the next one');
      taken.merge(this.buffer);
      this.buffer = taken;
    }
  }

  /** Stops the timer and writes everything (a SIGTERM: no report is lost). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
    // A flush that failed keeps its batch: one more try before the database closes.
    if (!this.buffer.empty) await this.flush();
  }
}
