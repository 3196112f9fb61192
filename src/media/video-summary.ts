// The video object of SPEC 2.2 (video events), with URLs, from the stored one.
import type { Config } from '../config.js';
import type { StoredVideo } from '../content/content-repository.js';
import { mediaUrl } from '../shared/media-url.js';

/** The video object of SPEC 2.2 as clients see it (content answers, `video:completed`). */
export interface VideoSummary {
  original_name: string | null;
  size: number | null;
  resolution: string | null;
  duration: number | null;
  status: string;
  thumbnail_url: string | null;
  content_url: string | null;
  url: string | null;
}

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
