// Outbound calls to the platforms (Node's global fetch) and how their failures surface: a 502
// `publishing.error.upstream` naming the platform's own error code, never a token or a body.
import { AppError } from '../shared/errors.js';
import type { OutboundGate } from '../outbound/index.js';
import { PLATFORM_NAMES, type Platform } from './platforms.js';

/** Metadata calls (tokens, init, status) give up after this long; byte transfers get longer. */
export const API_TIMEOUT_MS = 30_000;
export const TRANSFER_TIMEOUT_MS = 30 * 60_000;

/** The platform refused a grant (bad/used code, revoked refresh token): not a platform outage. */
export class GrantRejectedError extends Error {
  constructor(
    readonly platform: Platform,
    readonly platformCode: string,
  ) {
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

/**
 * fetch with a deadline; network failures and timeouts become 502 upstream errors. With a gate
 * (a URL the platform handed back, not one the operator configured), the URL must pass it
 * (CONTRACT §19 "Outbound requests") and the connection goes to the address it checked.
 */
export async function callPlatform(
  platform: Platform,
  step: string,
  url: string,
  init: RequestInit & { duplex?: 'half' },
  timeoutMs = API_TIMEOUT_MS,
  gate?: OutboundGate,
): Promise<Response> {
  let dispatcher: ReturnType<OutboundGate['dispatcher']> | undefined;
  if (gate) {
    const checked = await gate.check(url, ['https:', 'http:']);
    if (!checked.ok) throw upstreamError(platform, checked.refusal === 'unresolvable' ? 'network_error' : 'destination_not_allowed', step);
    dispatcher = gate.dispatcher(checked.target);
  }
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs), ...(dispatcher ? { dispatcher } : {}) });
  } catch (err) {
    const name = (err as Error)?.name;
    throw upstreamError(platform, name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network_error', step);
  } finally {
    // The body may still be streaming: the dispatcher closes once its requests are done.
    if (dispatcher) void dispatcher.close().catch(() => undefined);
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
