// Liveness and readiness (CONTRACT §1): /healthz while the process lives; /readyz only when the
// database (and Redis, when configured) answers and start-up (migrations) is done.
import { defineRoute, type AnyRoute } from '../route.js';
import { AppError } from '../../src/shared/errors.js';

export function healthRoutes(isReady: () => Promise<boolean>): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET', path: '/healthz', tag: 'health', auth: 'public', skipRateLimit: true, summary: 'Liveness',
      handler: async () => ({ raw: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'GET', path: '/readyz', tag: 'health', auth: 'public', skipRateLimit: true, summary: 'Readiness',
      errorStatuses: [503],
      handler: async () => {
        if (!(await isReady())) throw new AppError(503, 'service.error.not_ready', 'Service is not ready');
        return { raw: { status: 'ok' } };
      },
    }),
  ];
}
