// Liveness and readiness (CONTRACT §1): /healthz while the process lives; /readyz only when the
// database (and Redis, when configured) answers and start-up (migrations) is done. /readyz also
// says which HTTP/WebSocket transport runs (http/transport.ts), so a node on the slow fallback
// is visible to whoever probes it.
import { defineRoute, type AnyRoute } from '../route.js';
import { AppError } from '../../src/shared/errors.js';
import type { Transport } from '../transport.js';

export function healthRoutes(isReady: () => Promise<boolean>, transport: Transport): AnyRoute[] {
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
        return { raw: { status: 'ok', transport } };
      },
    }),
  ];
}
