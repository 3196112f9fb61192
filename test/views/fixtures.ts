// Fixtures of the views tests: published items with a known video length, playback reports, and a
// wait for what the once-a-second flush writes (reports lag; tests poll, never sleep-and-assert).
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { TestServer } from '../helpers/server.js';
import type { ApiClient, TestUser } from '../helpers/api.js';
import { announceContentChanged } from '../helpers/behind-the-service.js';
import { createContent } from '../sns/fixtures.js';

export const CONTENTS = '/content/api/v1/contents';

/** A published item of `owner` whose video lasts `durationSeconds`. */
export async function publishedVideo(server: TestServer, owner: TestUser, durationSeconds: number): Promise<string> {
  const id = await createContent(server, owner);
  await server.service.app.database.rows(sql`
    update contents set video = video || jsonb_build_object('duration', ${durationSeconds}::float8) where id = ${id}`);
  await announceContentChanged(server, id);
  return id;
}

export interface Report {
  playback_id: string;
  position: number;
  watched: number;
  source: string;
  campaign_id?: string;
}

export const report = (overrides: Partial<Report> = {}): Report => ({ playback_id: randomUUID(), position: 0, watched: 0, source: 'feed', ...overrides });

/** Reports one playback; answers the response. */
export const sendReport = (api: ApiClient, contentId: string, body: unknown, headers: Record<string, string> = {}) =>
  api.post(`${CONTENTS}/${contentId}/views`, body, { headers });

/** Polls `read` until `done` holds (the flush runs every second); fails after `attempts`. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, attempts = 100): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < attempts; i++) {
    last = await read();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not reached: ${JSON.stringify(last)}`);
}

export const today = (): string => new Date().toISOString().slice(0, 10);
