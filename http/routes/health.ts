// Liveness and readiness (CONTRACT §1): /healthz while the process lives; /readyz only when the
// database (and Redis, when configured) answers and start-up (migrations) is done. /readyz also
// says which HTTP/WebSocket transport runs (http/transport.ts), so a node on the slow fallback
// is visible to whoever probes it, and names the platforms whose publishing is switched off (a
// production node without their client credentials: src/publishing/platforms.ts), while the node
// stays ready for everything else. It names the media store (CONTRACT §27) and is 503 while that
// store cannot be reached.
import { defineRoute, type AnyRoute } from '../route.js';
import { AppError } from '../../src/shared/errors.js';
import type { Transport } from '../transport.js';
import type { Platform } from '../../src/publishing/index.js';
import type { MediaStore } from '../../src/media/index.js';

export function healthRoutes(
  isReady: () => Promise<boolean>,
  transport: Transport,
  publishingOff: readonly Platform[],
  media: Pick<MediaStore, 'name' | 'check'>,
  listings: { ready(): boolean },
): AnyRoute[] {
  const publishing = publishingOff.length
    ? { publishing_off: [...publishingOff], publishing_off_reason: 'client credentials unset (sandbox values) in production' }
    : {};
  return [
    defineRoute({
      method: 'GET',
      path: '/healthz',
      tag: 'health',
      auth: 'public',
      skipRateLimit: true,
      summary: 'Liveness',
      handler: async () => ({ raw: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/readyz',
      tag: 'health',
      auth: 'public',
      skipRateLimit: true,
      summary: 'Readiness (and the transport in use)',
      errorStatuses: [503],
      handler: async () => {
        if (!(await isReady())) throw new AppError(503, 'service.error.not_ready', 'Service is not ready');
        if (!listings.ready())
          throw new AppError(503, 'service.error.not_ready', 'The listing index is loading', { field: 'listing_index', constraint: 'loaded' });
        try {
          await media.check();
        } catch {
          throw new AppError(503, 'service.error.not_ready', `The media store ${media.name} cannot be reached`, {
            field: 'media_storage',
            constraint: media.name,
          });
        }
        return { raw: { status: 'ok', transport, media_storage: media.name, ...publishing } };
      },
    }),
  ];
}
