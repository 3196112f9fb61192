// HSTS (CONTRACT §19): every answer that reached its client over HTTPS carries it, whichever door
// wrote it (REST in http/, Socket.IO's polling and upgrade answers in realtime/).

/** A year. */
export const HSTS = 'max-age=31536000';

/**
 * Whether the client's request came over HTTPS: only a trusted proxy can say so (TLS ends there),
 * in the last `X-Forwarded-Proto` entry (the one the nearest proxy wrote).
 */
export function overHttps(headers: Record<string, string | undefined>, trustProxy: boolean): boolean {
  const proto = headers['x-forwarded-proto'];
  if (!trustProxy || !proto) return false;
  const hops = proto.split(',').map((s) => s.trim().toLowerCase());
  return hops[hops.length - 1] === 'https';
}
