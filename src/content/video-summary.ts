// The video object of SPEC 2.2 (video events), with URLs, from the stored one.
import { z } from 'zod';
import type { Config } from '../config.js';
import type { StoredVideo } from './content-repository.js';
import { mediaUrl } from '../shared/media-url.js';

/** The video object of SPEC 2.2 as clients see it (content answers, `video:completed`); also in the documents. */
export const videoSummarySchema = z.object({
  original_name: z.string().nullable(),
  size: z.number().nullable(),
  resolution: z.string().nullable(),
  duration: z.number().nullable(),
  status: z.string(),
  thumbnail_url: z.string().nullable(),
  content_url: z.string().nullable(),
  url: z.string().nullable(),
});

export type VideoSummary = z.output<typeof videoSummarySchema>;

export function videoSummary(config: Config, video: StoredVideo): VideoSummary {
  const url = (p: string | null) => (p ? mediaUrl(config, p) : null);
  return {
    original_name: video.original_name,
    size: video.size,
    resolution: video.resolution,
    duration: video.duration,
    status: video.status,
    thumbnail_url: url(video.thumbnail_path),
    content_url: url(video.original_path),
    url: url(video.playlist_path),
  };
}
