// The video object of SPEC 2.2 (video events), with URLs, from the stored one.
import type { Config } from '../config.js';
import type { StoredVideo } from '../content/content-repository.js';
import { mediaUrl } from '../shared/media-url.js';

/** The video object of SPEC 2.2 as clients see it (content answers, `video:completed`). */
export interface VideoSummary {
  resolution: string | null;
  size: number | null;
  duration: number | null;
  original_name: string | null;
  thumbnail_url: string | null;
  status: string;
  content_url: string | null;
  url: string | null;
}

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
