// GET /auth/api/v1/user/export/{exportId}/download (CONTRACT §22): the ZIP of a ready export,
// streamed to its owner's bearer token only; anyone else, and an export not ready or past its
// 24 hours, 404. The file is read from the media store; a store that cannot be reached, 503. Raw (uWS) because the answer is a file, not the JSON envelope; errors still are.
import type { Readable } from 'node:stream';
import type { TemplatedApp } from 'uWebSockets.js';
import type { Services } from '../src/services.js';
import type { CallerResolver } from '../src/auth/index.js';
import type { AppContext } from '../src/context.js';
import { AppError } from '../src/shared/errors.js';
import { isUuid } from '../src/shared/ids.js';
import { callerOf } from './steps/authenticate.js';
import { sendObject } from './media.js';
import { isStoreUnavailable, storeUnreachable } from '../src/media/index.js';
import type { OpenExchange } from './server.js';

export const EXPORT_DOWNLOAD_PATH = '/auth/api/v1/user/export/:exportId/download';

export function registerExportDownload(
  uws: TemplatedApp,
  app: AppContext,
  services: Pick<Services, 'dataExports'>,
  callers: CallerResolver,
  openExchange: OpenExchange,
): void {
  uws.get(EXPORT_DOWNLOAD_PATH, (res, req) => {
    const exportId = req.getParameter(0) ?? '';
    const exchange = openExchange(res, req, EXPORT_DOWNLOAD_PATH);
    let stream: Readable | null = null;
    exchange.onAbort(() => {
      stream?.destroy();
      if (stream) exchange.streamEnded(499);
    });
    const noStore = { 'Cache-Control': 'no-store' };
    void (async () => {
      const caller = (await callerOf(callers, exchange.headers.authorization, true))!;
      if (!isUuid(exportId)) throw new AppError(404, 'export.error.not_found', 'No such export');
      const key = await services.dataExports.fileOf(caller.userId, exportId);
      const object = await app.media.stat(key);
      if (!object) throw new AppError(404, 'export.error.not_found', 'No such export ready for download');
      if (exchange.closed) return exchange.streamEnded(499);
      const downloadName = `export-${exportId}.zip`;
      // With a CDN or public bucket address in front of media, the bytes come from the store
      // itself, through a short-lived signed URL given to the owner only.
      const signed = app.config.MEDIA_PUBLIC_BASE_URL ? await app.media.signedUrl(key, app.config.MEDIA_SIGNED_URL_SECONDS, downloadName) : null;
      if (signed) return exchange.send(302, { ...noStore, Location: signed }, '');
      stream = await sendObject(
        exchange,
        app.media,
        key,
        object,
        {
          ...noStore,
          'Content-Type': 'application/zip',
          'Content-Disposition': `attachment; filename="${downloadName}"`,
        },
        app.log,
      );
    })().catch((error: unknown) => exchange.sendError(isStoreUnavailable(error) ? storeUnreachable() : error, noStore));
  });
}
