// GET /auth/api/v1/user/export/{exportId}/download (CONTRACT §22): the ZIP of a ready export,
// streamed to its owner's bearer token only; anyone else, and an export not ready or past its
// 24 hours, 404. Raw (uWS) because the answer is a file, not the JSON envelope; errors still are.
import fs from 'node:fs';
import type { TemplatedApp } from 'uWebSockets.js';
import type { Services } from '../src/services.js';
import type { CallerResolver } from '../src/auth/caller.js';
import type { AppContext } from '../src/context.js';
import { AppError } from '../src/shared/errors.js';
import { isUuid } from '../src/shared/ids.js';
import { callerOf } from './steps/authenticate.js';
import { streamFile } from './media.js';
import type { OpenExchange } from './server.js';

export const EXPORT_DOWNLOAD_PATH = '/auth/api/v1/user/export/:exportId/download';

export function registerExportDownload(uws: TemplatedApp, app: AppContext, services: Services, callers: CallerResolver, openExchange: OpenExchange): void {
  uws.get(EXPORT_DOWNLOAD_PATH, (res, req) => {
    const exportId = req.getParameter(0) ?? '';
    const exchange = openExchange(res, req, EXPORT_DOWNLOAD_PATH);
    let stream: fs.ReadStream | null = null;
    exchange.onAbort(() => {
      stream?.destroy();
      if (stream) exchange.streamEnded(499);
    });
    const noStore = { 'Cache-Control': 'no-store' };
    void (async () => {
      const caller = (await callerOf(callers, exchange.headers.authorization, true))!;
      if (!isUuid(exportId)) throw new AppError(404, 'export.error.not_found', 'No such export');
      const file = await services.dataExports.fileOf(caller.userId, exportId);
      const stat = await fs.promises.stat(file).catch(() => null);
      if (!stat?.isFile()) throw new AppError(404, 'export.error.not_found', 'No such export ready for download');
      if (exchange.closed) return exchange.streamEnded(499);
      stream = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
      exchange.beginStream();
      streamFile(exchange, stream, stat.size, 200, {
        ...noStore,
        'Content-Type': 'application/zip',
        'Content-Disposition': `attachment; filename="export-${exportId}.zip"`,
      }, app.log);
    })().catch((error: unknown) => exchange.sendError(error, noStore));
  });
}
