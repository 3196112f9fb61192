// Outbound calls to the platforms (Node's global fetch) and how their failures surface: a 502
// `publishing.error.upstream` naming the platform's own error code, never a token or a body.
import { AppError } from '../shared/errors.js';
import { PLATFORM_NAMES, type Platform } from './platforms.js';

/** Metadata calls (tokens, init, status) give up after this long; byte transfers get longer. */
export const API_TIMEOUT_MS = 30_000;
export const TRANSFER_TIMEOUT_MS = 30 * 60_000;

/** The platform refused a grant (bad/used code, revoked refresh token): not a platform outage. */
export class GrantRejectedError extends Error {
  constructor(readonly platform: Platform, readonly platformCode: string) {
    super(`${PLATFORM_NAMES[platform]} rejected the grant: ${platformCode}`);
  }
}

/** A safe, short error code: the platform's own words are untrusted input. */
export function cleanCode(value: unknown, fallback: string): string {
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  const clean = text.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 80);
  return clean || fallback;
}

export function upstreamError(platform: Platform, platformCode: string, step: string): AppError {
  return new AppError(502, 'publishing.error.upstream', `${PLATFORM_NAMES[platform]} ${step} failed: ${platformCode}`);
}

/** fetch with a deadline; network failures and timeouts become 502 upstream errors. */
export async function callPlatform(platform: Platform, step: string, url: string, init: RequestInit & { duplex?: 'half' }, timeoutMs = API_TIMEOUT_MS): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const name = (err as Error)?.name;
    throw upstreamError(platform, name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network_error', step);
  }
}

/** The JSON body of a platform answer, or null when it is not JSON. */
export async function readJson(res: Response): Promise<Record<string, any> | null> {
  const text = await res.text().catch(() => '');
  if (!text) return null;
  try {
    const parsed = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? parsed : null;
  } catch {
    return null;
  }
}
