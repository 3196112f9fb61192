// GET/HEAD /media/<path>: files under MEDIA_DIR, served straight from uWS (not through the JSON
// route table): streamed from disk with backpressure (never read whole), single byte ranges (206,
// 416), validators (ETag, Last-Modified → 304) and cache lifetimes by kind of file.
// `hls-server` is not used: it hooks a Node `http.Server`'s request event, and this service has no
// such server (uWS answers HTTP); HLS delivery is plain static files with the right types and
// ranges, which this module does.
import fs from 'node:fs';
import path from 'node:path';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { AppContext } from '../src/context.js';
import { AppError } from '../src/shared/errors.js';
import { isContentTombstone } from '../src/media/media-removal.js';
import type { Exchange } from './exchange.js';
import type { OpenExchange } from './server.js';

const CONTENT_TYPES: Record<string, string> = {
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
  '.m4s': 'video/iso.segment',
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.bmp': 'image/bmp',
  '.pdf': 'application/pdf',
  '.vtt': 'text/vtt; charset=utf-8',
};

/** What a browser may show inline: pictures, video and HLS. Anything else (PDF, unknown) is a download. */
const INLINE_EXTENSIONS = new Set(['.m3u8', '.ts', '.m4s', '.mp4', '.m4v', '.mov', '.webm', '.mkv', '.jpg', '.jpeg', '.png', '.webp', '.gif', '.bmp', '.vtt']);

/**
 * Stored documents (CONTRACT §19): a download, never a page of our origin, and sandboxed should a
 * browser render it anyway (no script runs, no same-origin access).
 */
const DOCUMENT_HEADERS: Record<string, string> = {
  'Content-Disposition': 'attachment',
  'Content-Security-Policy': "sandbox; default-src 'none'; frame-ancestors 'none'",
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
// Names the service generates once and never reuses: uuids and per-run tokens.
const UNIQUE_NAME = /[0-9a-f]{8}/i;

/**
 * Playlists change when a video is processed again: short. Segments and uniquely named files
 * (uploads, content images, thumbnails: their names carry a uuid or a per-run token) never change:
 * a year, immutable. Anything else (the original video at a fixed name): an hour.
 */
function cacheControlFor(file: string): string {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.m3u8') return 'public, max-age=10';
  if (ext === '.ts' || ext === '.m4s') return IMMUTABLE;
  if (UNIQUE_NAME.test(path.basename(file, ext))) return IMMUTABLE;
  return 'public, max-age=3600';
}

/** The absolute file for a request path, or null for anything that could leave MEDIA_DIR or is hidden. */
function resolveMediaPath(mediaDir: string, url: string): string | null {
  const prefix = '/media/';
  if (!url.startsWith(prefix)) return null;
  const segments = url.slice(prefix.length).split('/');
  const decoded: string[] = [];
  for (const segment of segments) {
    if (segment === '') return null;
    let name: string;
    try {
      name = decodeURIComponent(segment);
    } catch {
      return null;
    }
    // Encoded separators, NULs, dot segments and hidden entries (work directories) are refused.
    if (name === '' || name.startsWith('.') || /[/\\\0]/.test(name)) return null;
    decoded.push(name);
  }
  const full = path.resolve(mediaDir, ...decoded);
  return full.startsWith(mediaDir + path.sep) ? full : null;
}

type ByteRange = { start: number; end: number } | 'unsatisfiable' | null;

/** One `bytes=` range; null when absent, malformed or multi-range (then the whole file is sent). */
function parseRange(header: string | undefined, size: number): ByteRange {
  if (!header) return null;
  const m = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

const etagOf = (stat: fs.Stats) => `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;

function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

/** The metrics label of every media answer (one label, not one per file). */
const MEDIA_ROUTE_LABEL = '/media/*';

export function registerMediaRoutes(uws: TemplatedApp, app: AppContext, openExchange: OpenExchange): void {
  const { config, log } = app;

  const handle = (res: HttpResponse, req: HttpRequest) => {
    const exchange = openExchange(res, req, MEDIA_ROUTE_LABEL);
    const { headers } = exchange;
    let stream: fs.ReadStream | null = null;
    exchange.onAbort(() => {
      stream?.destroy();
      // A streamed answer ends here when its client left (nothing else will end it).
      if (stream) exchange.streamEnded(499);
    });
    const sendError = (error: AppError) => exchange.sendError(error, { 'Cache-Control': 'no-store' });
    const notFound = () => sendError(new AppError(404, 'media.error.not_found', 'Media file not found'));

    const file = resolveMediaPath(config.mediaDir, exchange.url);
    // The empty file left where a deleted item's media was is not media (src/media/media-removal.ts).
    if (!file || isContentTombstone(path.relative(config.mediaDir, file).split(path.sep))) {
      notFound();
      return;
    }
    void serve(file).catch((err) => {
      log.error({ err, path: exchange.url }, 'media serving failed');
      sendError(new AppError(500, 'server.error.internal', 'An unexpected error occurred'));
    });

    async function serve(file: string): Promise<void> {
      let stat: fs.Stats;
      try {
        // A symbolic link must not lead out of MEDIA_DIR either.
        const real = await fs.promises.realpath(file);
        const realRoot = await fs.promises.realpath(config.mediaDir);
        if (!real.startsWith(realRoot + path.sep)) return notFound();
        stat = await fs.promises.stat(real);
        file = real;
      } catch {
        return notFound();
      }
      if (!stat.isFile()) return notFound();
      if (exchange.closed) return exchange.streamEnded(499);

      const etag = etagOf(stat);
      const lastModified = new Date(Math.floor(stat.mtimeMs / 1000) * 1000);
      const common: Record<string, string> = {
        'Content-Type': CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
        'Cache-Control': cacheControlFor(file),
        ETag: etag,
        'Last-Modified': lastModified.toUTCString(),
        'Accept-Ranges': 'bytes',
        ...(INLINE_EXTENSIONS.has(path.extname(file).toLowerCase()) ? {} : DOCUMENT_HEADERS),
      };

      const ifNoneMatch = headers['if-none-match'];
      const ifModifiedSince = headers['if-modified-since'];
      const notModified = ifNoneMatch
        ? etagMatches(ifNoneMatch, etag)
        : ifModifiedSince !== undefined && !Number.isNaN(Date.parse(ifModifiedSince)) && lastModified.getTime() <= Date.parse(ifModifiedSince);
      if (notModified) {
        const { 'Content-Type': _type, 'Accept-Ranges': _ranges, ...unchanged } = common;
        exchange.send(304, unchanged, null);
        return;
      }

      // If-Range: ranges apply only while the client's copy is still current.
      const ifRange = headers['if-range'];
      const rangeApplies = !ifRange || ifRange === etag || ifRange === common['Last-Modified'];
      const range = rangeApplies ? parseRange(headers.range, stat.size) : null;
      if (range === 'unsatisfiable') {
        exchange.sendError(new AppError(416, 'media.error.range_not_satisfiable', 'Requested range not satisfiable', undefined, { 'Content-Range': `bytes */${stat.size}` }), common);
        return;
      }
      const start = range ? range.start : 0;
      const end = range ? range.end : stat.size - 1;
      const length = Math.max(0, end - start + 1);
      const status = range ? 206 : 200;
      const answerHeaders = range ? { ...common, 'Content-Range': `bytes ${start}-${end}/${stat.size}` } : common;

      if (exchange.method === 'HEAD') {
        // HEAD tells the length it would send.
        exchange.beginStream();
        res.cork(() => {
          exchange.writeHead(status, answerHeaders);
          res.endWithoutBody(length);
        });
        exchange.streamEnded(status);
        return;
      }
      if (length === 0) {
        exchange.send(status, answerHeaders, '');
        return;
      }
      stream = fs.createReadStream(file, { start, end, highWaterMark: 256 * 1024 });
      exchange.beginStream();
      streamFile(exchange, stream, length, status, answerHeaders, log);
    }
  };

  uws.get('/media/*', handle);
  uws.head('/media/*', handle);
}

/** Streams a file range with backpressure: pauses the read while the socket is full. */
export function streamFile(
  exchange: Exchange,
  stream: fs.ReadStream,
  total: number,
  status: number,
  headers: Record<string, string>,
  log: AppContext['log'],
): void {
  const { res } = exchange;
  let headWritten = false;
  let finished = false;
  const end = (finalStatus: number) => {
    finished = true;
    stream.destroy();
    exchange.streamEnded(finalStatus);
  };
  stream.on('error', (err) => {
    if (exchange.aborted || finished) return;
    log.warn({ err: err.message }, 'media read failed');
    // Headers may already be out: the only honest signal left is closing the connection.
    res.cork(() => {
      if (headWritten) res.close();
      else {
        exchange.writeHead(500, {});
        res.end();
      }
    });
    end(500);
  });
  stream.on('data', (chunk: Buffer | string) => {
    if (exchange.aborted || finished) {
      stream.destroy();
      return;
    }
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
    res.cork(() => {
      if (!headWritten) {
        exchange.writeHead(status, headers);
        headWritten = true;
      }
      const lastOffset = res.getWriteOffset();
      const [ok, done] = res.tryEnd(ab, total);
      if (done) end(status);
      else if (!ok) {
        stream.pause();
        res.onWritable((offset) => {
          if (exchange.aborted) return true;
          const [retryOk, retryDone] = res.tryEnd(ab.slice(offset - lastOffset), total);
          if (retryDone) end(status);
          else if (retryOk) stream.resume();
          return retryOk;
        });
      }
    });
  });
}
