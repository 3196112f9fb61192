// The media side of the contents table (owned by the content domain, migration 0002): reading
// an item's owner and video, and the writes the data contract gives to uploads and processing.
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../db/client.js';
import type { Config } from '../config.js';
import type { VideoSummary } from '../shared/events.js';
import { mediaUrl } from '../shared/media-url.js';

/** contents.video as stored (paths relative to MEDIA_DIR). */
export interface StoredVideo {
  original_name?: string | null;
  size?: number | null;
  resolution?: string | null;
  duration?: number | null;
  status?: string;
  original_path?: string | null;
  playlist_path?: string | null;
  thumbnail_path?: string | null;
  error?: string | null;
}

export interface StoredImage {
  id: string;
  path: string;
  name: string;
}

export interface ContentMediaRow {
  id: string;
  uploader_id: string;
  status: string;
  video: StoredVideo;
  images: StoredImage[];
}

type Executor = { execute: (q: ReturnType<typeof sql>) => Promise<unknown> };
const rowsOf = async <T>(ex: Executor, q: ReturnType<typeof sql>): Promise<T[]> => ((await ex.execute(q)) as { rows: T[] }).rows;
const json = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;

export class ContentMedia {
  constructor(private readonly database: DatabaseHandle) {}

  async find(contentId: string): Promise<ContentMediaRow | null> {
    const rows = await this.database.rows<ContentMediaRow>(sql`
      select id, uploader_id, status, video, images from contents where id = ${contentId} and deleted_at is null`);
    return rows[0] ?? null;
  }

  /** Locks the row (inside a transaction) so concurrent uploads to one item serialise. */
  async findForUpdate(tx: Executor, contentId: string): Promise<ContentMediaRow | null> {
    const rows = await rowsOf<ContentMediaRow>(tx, sql`
      select id, uploader_id, status, video, images from contents where id = ${contentId} and deleted_at is null for update`);
    return rows[0] ?? null;
  }

  /** The main video was uploaded: processing starts over from this file. */
  async markVideoProcessing(tx: Executor, contentId: string, originalPath: string, originalName: string, size: number): Promise<void> {
    await tx.execute(sql`
      update contents set status = 'processing', updated_at = now(),
        video = video || ${json({
          status: 'processing', original_path: originalPath, size, error: null,
          playlist_path: null, thumbnail_path: null, resolution: null, duration: null,
        })} || jsonb_build_object('original_name', coalesce(nullif(video->>'original_name', ''), ${originalName}::text))
      where id = ${contentId}`);
  }

  async appendImages(tx: Executor, contentId: string, images: StoredImage[]): Promise<void> {
    await tx.execute(sql`update contents set images = coalesce(images, '[]'::jsonb) || ${json(images)}, updated_at = now() where id = ${contentId}`);
  }

  async markVideoCompleted(
    tx: Executor,
    contentId: string,
    result: { resolution: string; duration: number; size: number; playlist_path: string; thumbnail_path: string },
  ): Promise<ContentMediaRow | null> {
    const rows = await rowsOf<ContentMediaRow>(tx, sql`
      update contents set status = 'completed', updated_at = now(),
        video = video || ${json({ ...result, status: 'completed', error: null })}
      where id = ${contentId} and deleted_at is null
      returning id, uploader_id, status, video, images`);
    return rows[0] ?? null;
  }

  async markVideoFailed(tx: Executor, contentId: string, reason: string): Promise<ContentMediaRow | null> {
    const rows = await rowsOf<ContentMediaRow>(tx, sql`
      update contents set status = 'failed', updated_at = now(),
        video = video || ${json({ status: 'failed', error: reason })}
      where id = ${contentId} and deleted_at is null
      returning id, uploader_id, status, video, images`);
    return rows[0] ?? null;
  }
}

/** The SPEC 2.2 video object with URLs, from the stored one. */
export function videoSummary(config: Config, video: StoredVideo): VideoSummary {
  const url = (p: string | null | undefined) => (p ? mediaUrl(config, p) : null);
  return {
    resolution: video.resolution ?? null,
    size: video.size ?? null,
    duration: video.duration ?? null,
    original_name: video.original_name ?? null,
    thumbnail_url: url(video.thumbnail_path),
    status: video.status ?? 'pending',
    content_url: url(video.original_path),
    url: url(video.playlist_path),
  };
}
