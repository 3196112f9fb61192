// Media objects are served at PUBLIC_BASE_URL/media/<key> (http/media.ts), or, with
// MEDIA_PUBLIC_BASE_URL (a CDN or the bucket's public address, CONTRACT §27), public ones at
// MEDIA_PUBLIC_BASE_URL/<key>. Private files (documents) keep the /media address, which then
// answers with a short-lived signed URL of the store.
import path from 'node:path';
import type { Config } from '../config.js';

/** A relative path of segments that encodeURIComponent leaves as they are (the names this service gives files). */
const PLAIN_PATH = /^[\w.~-]+(?:\/[\w.~-]+)*$/;

/** Documents are private: never on the public CDN or bucket address, only through signed URLs. */
export const isPrivateMedia = (key: string): boolean => path.extname(key).toLowerCase() === '.pdf';

export function mediaUrl(config: Config, relativePath: string): string {
  const base =
    config.MEDIA_PUBLIC_BASE_URL && !isPrivateMedia(relativePath) ? config.MEDIA_PUBLIC_BASE_URL.replace(/\/+$/, '') : `${config.publicBaseUrl}/media`;
  // Most paths need no escaping: a test instead of splitting, encoding and joining each (every listed item has several).
  if (PLAIN_PATH.test(relativePath)) return `${base}/${relativePath}`;
  const clean = relativePath.split(path.sep).join('/').replace(/^\/+/, '');
  return `${base}/${clean.split('/').map(encodeURIComponent).join('/')}`;
}
