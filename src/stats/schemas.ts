// Query of GET /content/api/v1/stats/by-day (CONTRACT §12).
import { z } from 'zod';
import { isCalendarDate } from './days.js';

export const MAX_RANGE_DAYS = 366;

const calendarDate = z.string().refine(isCalendarDate, 'a date YYYY-MM-DD');

export const statsByDayQuery = z.object({
  start_date: calendarDate,
  end_date: calendarDate,
  user_id: z
    .uuid('must be a user id')
    .transform((s) => s.toLowerCase())
    .optional(),
});

const entry = z.object({
  date: z.string(),
  posts: z.number().int(),
  followers: z.number().int(),
  following: z.number().int(),
  reactions: z.number().int(),
  reactions_total: z.number().int(),
  views: z.number().int().describe("Views of the user's items (CONTRACT §26; may lag by up to 60 s)"),
  watch_seconds: z.number().int().describe("Seconds watched of the user's items"),
  leads: z.number().int().describe("Chat rooms opened on the user's items by others (once per viewer and item)"),
});

export const statsByDayData = z.object({
  days: z.array(entry),
  followers_growth: z.number().int(),
  following_growth: z.number().int(),
  reactions_growth: z.number().int(),
});

export type StatsByDay = z.infer<typeof statsByDayData>;
