// Media files live under MEDIA_DIR and are served at PUBLIC_BASE_URL/media/<relative path>.
import path from 'node:path';
import type { Config } from '../config.js';

/** A relative path of segments that encodeURIComponent leaves as they are (the names this service gives files). */
const PLAIN_PATH = /^[\w.~-]+(?:\/[\w.~-]+)*$/;

export function mediaUrl(config: Config, relativePath: string): string {
  // Most paths need no escaping: a test instead of splitting, encoding and joining each (every listed item has several).
  if (PLAIN_PATH.test(relativePath)) return `${config.publicBaseUrl}/media/${relativePath}`;
  const clean = relativePath.split(path.sep).join('/').replace(/^\/+/, '');
  return `${config.publicBaseUrl}/media/${clean.split('/').map(encodeURIComponent).join('/')}`;
}

/** Absolute path under MEDIA_DIR for a relative media path (refuses escapes). */
export function mediaPath(config: Config, relativePath: string): string {
  const full = path.resolve(config.mediaDir, relativePath);
  if (!full.startsWith(config.mediaDir + path.sep)) throw new Error('media path escapes MEDIA_DIR');
  return full;
}
