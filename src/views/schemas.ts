// Shapes of CONTRACT §26's playback reports and per-item analytics, declared once for the REST
// route, the `/comments` socket event, the OpenAPI and AsyncAPI documents and the typed client.
import { z } from 'zod';
import { isCalendarDate } from '../stats/index.js';

export const VIEW_SOURCES = ['feed', 'search', 'map', 'profile', 'campaign', 'link', 'live'] as const;
export type ViewSource = (typeof VIEW_SOURCES)[number];

/** Longest video a report may place itself in (seconds): a day, well past any upload limit. */
const MAX_POSITION_SECONDS = 86_400;
/** Most seconds one report may claim; the elapsed-time cap takes it down further. */
const MAX_WATCHED_SECONDS = 3_600;

export const playbackReportBody = z.strictObject({
  playback_id: z.uuid('must be a uuid').transform((s) => s.toLowerCase()),
  position: z.number().min(0).max(MAX_POSITION_SECONDS).describe('Seconds into the video'),
  watched: z.number().min(0).max(MAX_WATCHED_SECONDS).describe('Seconds watched since the previous report of this playback'),
  source: z.enum(VIEW_SOURCES),
  campaign_id: z
    .uuid('must be a campaign id')
    .transform((s) => s.toLowerCase())
    .optional(),
});
export type PlaybackReport = z.infer<typeof playbackReportBody>;

/** The socket form: the report with the item it is about. */
export const watchPayload = playbackReportBody.extend({ contentId: z.uuid('must be a content id').transform((s) => s.toLowerCase()) });

export const playbackAnswer = z.object({ counted: z.boolean().describe('Whether this playback was counted as a view') });
export type PlaybackAnswer = z.infer<typeof playbackAnswer>;

export const viewsUpdate = z.object({ contentId: z.string(), view_count: z.number().int() });
export type ViewsUpdate = z.infer<typeof viewsUpdate>;

const calendarDate = z.string().refine(isCalendarDate, 'a date YYYY-MM-DD');
export const analyticsQuery = z.object({ start_date: calendarDate, end_date: calendarDate });

const figures = {
  views: z.number().int(),
  unique_viewers: z.number().int().describe('Distinct viewers of the day; in totals, the sum over the days'),
  watch_seconds: z.number().int(),
  avg_view_seconds: z.number().describe('watch_seconds / views, one decimal; 0 without views'),
  impressions: z.number().int().describe('Times the item was served in a sponsored slot'),
  leads: z.number().int(),
};
const dayFigures = z.object({ date: z.string().describe('Midnight UTC of the day'), ...figures });
export type DayFigures = z.infer<typeof dayFigures>;
const totalFigures = z.object(figures);
export type TotalFigures = z.infer<typeof totalFigures>;

export const analyticsData = z.object({
  days: z.array(dayFigures),
  totals: totalFigures,
  retention: z.array(z.number()).length(10).describe('Share (0..1) of the views that reached 10 %, 20 % … 100 % of the video'),
  sources: z.object(Object.fromEntries(VIEW_SOURCES.map((s) => [s, z.number().int()])) as Record<ViewSource, z.ZodNumber>),
});
export type AnalyticsData = z.infer<typeof analyticsData>;
