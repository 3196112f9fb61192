// Liveness and readiness (CONTRACT §1): /healthz while the process lives; /readyz only when the
// database (and Redis, when configured) answers and start-up (migrations) is done. /readyz also
// says which HTTP/WebSocket transport runs (http/transport.ts), so a node on the slow fallback
// is visible to whoever probes it, and names the platforms whose publishing is switched off (a
// production node without their client credentials: src/publishing/platforms.ts), while the node
// stays ready for everything else.
import { defineRoute, type AnyRoute } from '../route.js';
import { AppError } from '../../src/shared/errors.js';
import type { Transport } from '../transport.js';
import type { Platform } from '../../src/publishing/platforms.js';

export function healthRoutes(isReady: () => Promise<boolean>, transport: Transport, publishingOff: readonly Platform[] = []): AnyRoute[] {
  const publishing = publishingOff.length ? { publishing_off: [...publishingOff], publishing_off_reason: 'client credentials unset (sandbox values) in production' } : {};
  return [
    defineRoute({
      method: 'GET', path: '/healthz', tag: 'health', auth: 'public', skipRateLimit: true, summary: 'Liveness',
      handler: async () => ({ raw: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'GET', path: '/readyz', tag: 'health', auth: 'public', skipRateLimit: true, summary: 'Readiness (and the transport in use)',
      errorStatuses: [503],
      handler: async () => {
        if (!(await isReady())) throw new AppError(503, 'service.error.not_ready', 'Service is not ready');
        return { raw: { status: 'ok', transport, ...publishing } };
      },
    }),
  ];
}
