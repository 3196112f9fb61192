// GET/HEAD /media/<path>: objects of the media store (MEDIA_DIR or the bucket, CONTRACT §27),
// served straight from uWS (not through the JSON route table): streamed with backpressure (never
// read whole), single byte ranges (206, 416), validators (ETag, Last-Modified → 304) and cache
// lifetimes by kind of file. With MEDIA_PUBLIC_BASE_URL a private file (a document) is answered
// with a redirect to a short-lived signed URL of the store; a store that cannot be reached, 503.
// `hls-server` is not used: it hooks a Node `http.Server`'s request event, and this service has no
// such server (uWS answers HTTP); HLS delivery is plain static files with the right types and
// ranges, which this module does.
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { AppContext } from '../src/context.js';
import { AppError } from '../src/shared/errors.js';
import { isContentTombstone } from '../src/media/index.js';
import { contentTypeOf } from '../src/media/index.js';
import type { StoredObject } from '../src/media/index.js';
import { isStoreUnavailable, storeUnreachable } from '../src/media/index.js';
import { isPrivateMedia } from '../src/shared/media-url.js';
import type { Exchange } from './exchange.js';
import type { OpenExchange } from './server.js';

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

/** The media key a request path names, or null for anything that could leave the store's keys or is hidden. */
function mediaKeyOf(url: string): string | null {
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
  // Nothing served sits at the root (a bucket keeps unfinished resumable uploads there), and the
  // empty file left where a deleted item's media was is not media (MediaStore.withdrawContent).
  return decoded.length < 2 || isContentTombstone(decoded) ? null : decoded.join('/');
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

function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

/** The metrics label of every media answer (one label, not one per file). */
const MEDIA_ROUTE_LABEL = '/media/*';

export function registerMediaRoutes(uws: TemplatedApp, app: AppContext, openExchange: OpenExchange): void {
  const { config, log, media } = app;

  const handle = (res: HttpResponse, req: HttpRequest) => {
    const exchange = openExchange(res, req, MEDIA_ROUTE_LABEL);
    let stream: Readable | null = null;
    exchange.onAbort(() => {
      stream?.destroy();
      // A streamed answer ends here when its client left (nothing else will end it).
      if (stream) exchange.streamEnded(499);
    });
    const sendError = (error: AppError) => exchange.sendError(error, { 'Cache-Control': 'no-store' });
    const notFound = () => sendError(new AppError(404, 'media.error.not_found', 'Media file not found'));

    const key = mediaKeyOf(exchange.url);
    if (!key) {
      notFound();
      return;
    }
    void serve(key).catch((err) => {
      if (exchange.closed) return;
      if (isStoreUnavailable(err)) {
        log.warn({ err: err.message, path: exchange.url }, 'media store unavailable');
        return sendError(storeUnreachable());
      }
      log.error({ err, path: exchange.url }, 'media serving failed');
      sendError(new AppError(500, 'server.error.internal', 'An unexpected error occurred'));
    });

    async function serve(key: string): Promise<void> {
      if (config.MEDIA_PUBLIC_BASE_URL && isPrivateMedia(key)) {
        const signed = await media.signedUrl(key, config.MEDIA_SIGNED_URL_SECONDS, path.posix.basename(key));
        if (signed && (await media.stat(key))) {
          exchange.send(302, { Location: signed, 'Cache-Control': 'no-store' }, '');
          return;
        }
      }
      const object = await media.stat(key);
      if (!object) return notFound();
      if (exchange.closed) return exchange.streamEnded(499);
      const ext = path.extname(key).toLowerCase();
      const headers: Record<string, string> = {
        'Content-Type': contentTypeOf(key),
        'Cache-Control': cacheControlFor(key),
        ...(INLINE_EXTENSIONS.has(ext) ? {} : DOCUMENT_HEADERS),
      };
      stream = await sendObject(exchange, media, key, object, headers, log);
    }
  };

  uws.get('/media/*', handle);
  uws.head('/media/*', handle);
}

/**
 * Answers with a stored object: validators (ETag, Last-Modified; If-None-Match, If-Modified-Since
 * → 304), one byte range (206, 416; If-Range), HEAD, else its bytes streamed. Answers the stream
 * it reads from (for the caller's abort handler), or null when none was needed.
 */
export async function sendObject(
  exchange: Exchange,
  media: AppContext['media'],
  key: string,
  object: StoredObject,
  headers: Record<string, string>,
  log: AppContext['log'],
): Promise<Readable | null> {
  const { res } = exchange;
  const requestHeaders = exchange.headers;
  const { etag, size } = object;
  const lastModified = new Date(Math.floor(object.lastModified.getTime() / 1000) * 1000);
  const common: Record<string, string> = { ...headers, ETag: etag, 'Last-Modified': lastModified.toUTCString(), 'Accept-Ranges': 'bytes' };

  const ifNoneMatch = requestHeaders['if-none-match'];
  const ifModifiedSince = requestHeaders['if-modified-since'];
  const notModified = ifNoneMatch
    ? etagMatches(ifNoneMatch, etag)
    : ifModifiedSince !== undefined && !Number.isNaN(Date.parse(ifModifiedSince)) && lastModified.getTime() <= Date.parse(ifModifiedSince);
  if (notModified) {
    const { 'Content-Type': _type, 'Accept-Ranges': _ranges, ...unchanged } = common;
    exchange.send(304, unchanged, null);
    return null;
  }

  // If-Range: ranges apply only while the client's copy is still current.
  const ifRange = requestHeaders['if-range'];
  const rangeApplies = !ifRange || ifRange === etag || ifRange === common['Last-Modified'];
  const range = rangeApplies ? parseRange(requestHeaders.range, size) : null;
  if (range === 'unsatisfiable') {
    exchange.sendError(
      new AppError(416, 'media.error.range_not_satisfiable', 'Requested range not satisfiable', undefined, { 'Content-Range': `bytes */${size}` }),
      common,
    );
    return null;
  }
  const start = range ? range.start : 0;
  const end = range ? range.end : size - 1;
  const length = Math.max(0, end - start + 1);
  const status = range ? 206 : 200;
  const answerHeaders = range ? { ...common, 'Content-Range': `bytes ${start}-${end}/${size}` } : common;

  if (exchange.method === 'HEAD') {
    // HEAD tells the length it would send.
    exchange.beginStream();
    res.cork(() => {
      exchange.writeHead(status, answerHeaders);
      res.endWithoutBody(length);
    });
    exchange.streamEnded(status);
    return null;
  }
  if (length === 0) {
    exchange.send(status, answerHeaders, '');
    return null;
  }
  const stream = await media.read(key, { start, end });
  if (exchange.closed) {
    stream.destroy();
    exchange.streamEnded(499);
    return null;
  }
  exchange.beginStream();
  streamFile(exchange, stream, length, status, answerHeaders, log);
  return stream;
}

/** Streams a file range with backpressure: pauses the read while the socket is full. */
export function streamFile(exchange: Exchange, stream: Readable, total: number, status: number, headers: Record<string, string>, log: AppContext['log']): void {
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
