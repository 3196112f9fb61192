// Which HTTP/WebSocket transport this process runs. The uWebSockets.js build we install ships
// native binaries for Node 16, 18 and 20 only (ABI 93, 108, 115). On any other Node its loader
// prints a warning and returns a JavaScript fallback built on node:http and ws, and nothing else
// tells the operator. So start-up asks which one was loaded and refuses the fallback unless
// ALLOW_SLOW_TRANSPORT is set — and even then only if the fallback can serve our requests: the
// fallback of the build we install (20.30.0-unofficial.0) cannot (its HttpRequest.forEach, which
// reads the headers, throws "Not implemented", and getQuery throws on every request because it
// parses the path as an absolute URL), so a node on it would fail every request.
//
// The package's loader (`src/uws.js`) returns either the native addon or the exports of its
// `dist/index.js`; both are CommonJS, so a loaded fallback is in the require cache. The loader's
// own switch `UWS_USE_FALLBACK=true` forces the fallback, which is how the refusal is tested on a
// Node that has the native binary (src/config.ts reads it too, so the refusal can name it).
import { createRequire } from 'node:module';
import uWS from 'uWebSockets.js';

export type Transport = 'uws-native' | 'uws-js-fallback';

const require = createRequire(import.meta.url);

/** Which implementation `module` (the imported uWebSockets.js) is. */
export function detectTransport(module: unknown = uWS): Transport {
  const fallbackPath = require.resolve('uWebSockets.js/dist/index.js');
  const fallback = require.cache[fallbackPath]?.exports as { App?: unknown } | undefined;
  // Compared by its App function: an ES module import of CommonJS may hand out a copy of the
  // exports object, but the functions in it are the same.
  return fallback?.App !== undefined && (module as { App?: unknown }).App === fallback.App ? 'uws-js-fallback' : 'uws-native';
}

/**
 * Whether the installed fallback implements what every request of ours uses: the headers
 * (`forEach`) and the raw query string (`getQuery()`). Tried on a request of its own making.
 */
export function fallbackCanServe(): boolean {
  try {
    const { HttpRequest } = require('uWebSockets.js/dist/http-request.js') as {
      HttpRequest: new (request: { url: string; method: string; headers: Record<string, string> }) => {
        forEach(cb: (key: string, value: string) => void): void;
        getQuery(): string | undefined;
      };
    };
    const req = new HttpRequest({ url: '/probe?a=1', method: 'GET', headers: { host: 'localhost' } });
    const headers: string[] = [];
    req.forEach((key) => headers.push(key));
    return headers.includes('host') && (req.getQuery() ?? '').replace(/^\?/, '') === 'a=1';
  } catch {
    return false;
  }
}

export interface TransportState {
  transport: Transport;
  /** For the fallback: whether it can serve our requests at all (fallbackCanServe). */
  fallbackServes: boolean;
}

export type TransportDecision = { start: true; warning?: string } | { start: false; reason: string };

/** Whether a node may start; the operator's override lets a working fallback through. */
export function transportDecision(state: TransportState, settings: { allowSlowTransport: boolean; fallbackForced: boolean }): TransportDecision {
  if (state.transport === 'uws-native') return { start: true };
  const { allowSlowTransport, fallbackForced: forced } = settings;
  const why = forced
    ? 'uWebSockets.js runs its slow JavaScript fallback (UWS_USE_FALLBACK is set)'
    : `uWebSockets.js has no native binary for Node ${process.version} (ABI ${process.versions.modules}) and runs its slow JavaScript fallback`;
  const remedy = `Run on Node 20 (see README, "Supported Node versions")${forced ? ' without UWS_USE_FALLBACK' : ''}`;
  if (!state.fallbackServes) {
    return {
      start: false,
      reason: `${why}, which cannot serve this service's requests (its HttpRequest lacks forEach/getQuery), so ALLOW_SLOW_TRANSPORT cannot help. ${remedy}.`,
    };
  }
  if (allowSlowTransport) return { start: true, warning: `${why}; starting anyway because ALLOW_SLOW_TRANSPORT=true` };
  return { start: false, reason: `${why}. ${remedy}, or set ALLOW_SLOW_TRANSPORT=true to start on the fallback anyway.` };
}

/** The transport of this process and whether its fallback could serve. */
export function transportState(): TransportState {
  const transport = detectTransport();
  return { transport, fallbackServes: transport === 'uws-js-fallback' && fallbackCanServe() };
}
