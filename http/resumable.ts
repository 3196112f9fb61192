// Resumable uploads (tus 1.0: core, creation, creation-with-upload, termination, expiration) at
// {file_api}/resumable, CONTRACT §24. The protocol is @tus/server's, reached through its
// web-standard door (`handleWeb(Request) → Response`): this module turns a uWS request into a
// Request whose body streams from the socket with backpressure (web-body.ts), and the Response
// into an answer through the service's one writer (request id, CORS, security headers, log).
// Around it, our rules: the bearer token and `upload:file` on every request but OPTIONS, the
// upload rate limit counted once, at creation; only the uploader may touch an upload (others:
// 404); the creation and completion rules of ResumableUploads (src/media/resumable-uploads.ts);
// every error in the envelope of SPEC §7, with tus's headers.
import { Server, type ServerOptions } from '@tus/server';
import { TUS_RESUMABLE, TUS_VERSION } from '@tus/utils';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { AppContext } from '../src/context.js';
import type { Caller, CallerResolver } from '../src/auth/index.js';
import { requirePermission } from '../src/auth/index.js';
import type { Services } from '../src/services.js';
import type { ResumableUploadRow } from '../src/media/index.js';
import { readOnlyLocker } from '../src/media/index.js';
import { withChunkedBody } from '../src/media/index.js';
import { AppError } from '../src/shared/errors.js';
import { newId } from '../src/shared/ids.js';
import { IncomingBody, bodyTooLarge, hasBody } from './body.js';
import type { Exchange } from './exchange.js';
import { rateLimitHeaders, type RateLimitName, type RateLimits } from './rate-limit.js';
import type { OpenExchange } from './server.js';
import { callerOf } from './steps/authenticate.js';
import { webBody, type WebBody } from './web-body.js';
import { invalidHeader, tusError, tusTextError } from './resumable-errors.js';

export const RESUMABLE_PATH = '/file-processing/api/v1/resumable';
const UPLOAD_ROUTE = `${RESUMABLE_PATH}/:id`;
const PERMISSION = 'upload:file';
const TUS_HEADERS = { 'Tus-Resumable': TUS_RESUMABLE };

export interface ResumableRouteDeps {
  app: AppContext;
  services: Pick<Services, 'resumableUploads'>;
  callers: CallerResolver;
  rateLimits: RateLimits;
  openExchange: OpenExchange;
}

/** What our hooks around tus need to know about the request tus is handling. */
interface UploadRequest {
  caller: Caller;
  /** The upload: found before tus runs, or recorded by the creation hook. */
  row: ResumableUploadRow | null;
  /** The error of our own rules (or tus's, mapped) that the answer carries. */
  error: AppError | null;
  /** The upload's record and bytes are gone (refused at completion). */
  discarded: boolean;
}

export function registerResumableUploads(uws: TemplatedApp, deps: ResumableRouteDeps): void {
  const { app, services } = deps;
  const resumable = services.resumableUploads;
  const requests = new WeakMap<Request, UploadRequest>();
  const of = (req: Request): UploadRequest => {
    const state = requests.get(req);
    if (!state) throw new Error('a tus request without its state');
    return state;
  };

  const options: ServerOptions = {
    path: RESUMABLE_PATH,
    relativeLocation: true,
    maxSize: resumable.maxSize,
    namingFunction: () => newId(),
    // HEAD only reads the offset (the file's size): it never waits for, or refuses on, a writer.
    locker: (req) => (req.method === 'HEAD' ? readOnlyLocker : resumable.locker),
    onUploadCreate: async (req, upload) => {
      const state = of(req);
      state.row = await resumable.create(state.caller, { id: upload.id, size: upload.size, metadata: upload.metadata });
      return {};
    },
    onUploadFinish: async (req, upload) => {
      const state = of(req);
      try {
        await resumable.complete(state.caller, upload.id);
      } catch (err) {
        state.discarded = err instanceof AppError && err.status < 500;
        throw err;
      }
      state.row = state.row && { ...state.row, state: 'completed' };
      return {};
    },
    onResponseError: (req, err) => {
      const state = requests.get(req);
      const error = tusError(err);
      if (error.status >= 500 && !(err instanceof AppError)) app.log.error({ err }, 'resumable upload failed');
      if (state) state.error = error;
      return { status_code: error.status, body: '' };
    },
  };
  const tus = new Server({ ...options, datastore: resumable.bytes.datastore });

  const handle = (res: HttpResponse, req: HttpRequest, id: string | null) => {
    const exchange = deps.openExchange(res, req, id === null ? RESUMABLE_PATH : UPLOAD_ROUTE);
    const { method, headers } = exchange;
    const declaredLength = headers['content-length'] !== undefined ? Number(headers['content-length']) || 0 : null;
    // Attached now (uWS drops data that comes with no reader), paused until the caller is known.
    const body = (method === 'POST' || method === 'PATCH') && hasBody(headers) ? new IncomingBody(res, resumable.maxSize, true, declaredLength) : null;
    exchange.onAbort(() => body?.abort());
    void serve(exchange, id, body, declaredLength).catch(async (error: unknown) => {
      const { close } = body ? await body.dropRest() : { close: false };
      exchange.sendError(error, TUS_HEADERS, close);
    });
  };

  const serve = async (exchange: Exchange, id: string | null, body: IncomingBody | null, declaredLength: number | null) => {
    const { method, headers } = exchange;
    if (method === 'OPTIONS') {
      exchange.send(204, { ...discoveryHeaders(resumable.maxSize, resumable.bytes.datastore.extensions), ...exchange.preflightHeaders() }, null);
      return;
    }
    const allowed = id === null ? method === 'POST' : ['HEAD', 'PATCH', 'DELETE'].includes(method);
    if (!allowed) throw new AppError(404, 'route.error.not_found', `No route for ${method} ${exchange.url}`);
    if ((declaredLength ?? 0) > resumable.maxSize) throw bodyTooLarge(resumable.maxSize);
    const caller = (await callerOf(deps.callers, headers.authorization, true))!;
    requirePermission(caller, PERMISSION);

    // An upload counts once against the upload limit, at its creation; HEAD and PATCH count
    // against no limit (a 500 MB video in 5 MB chunks is 100 PATCHes), DELETE as any request.
    const key = `u:${caller.userId}`;
    const limits: RateLimitName[] = id === null ? ['general', 'uploads'] : method === 'DELETE' ? ['general'] : [];
    const rateHeaders = limits.length ? rateLimitHeaders(await deps.rateLimits.consume(limits.map((name) => ({ name, key })))) : {};
    let row: ResumableUploadRow | null = null;
    if (id !== null) {
      row = await resumable.find(caller, id);
      if (row.state !== 'uploading' && (await answerFinished(exchange, row, body))) return;
    }

    const state: UploadRequest = { caller, row, error: null, discarded: false };
    const incoming = body ? webBody(body) : null;
    const request = new Request(`http://service${exchange.url}`, {
      method,
      headers: requestHeaders(headers),
      ...(incoming ? { body: incoming.stream, duplex: 'half' } : {}),
    });
    requests.set(request, state);
    // A body of unknown length (chunked) is written only once it ended (see withChunkedBody).
    const response = await (incoming && declaredLength === null ? withChunkedBody(() => tus.handleWeb(request)) : tus.handleWeb(request));
    await answer(exchange, response, state, incoming, body, rateHeaders);
  };

  /** HEAD, PATCH or DELETE of an upload whose last byte arrived; true when answered here. */
  const answerFinished = async (exchange: Exchange, row: ResumableUploadRow, body: IncomingBody | null): Promise<boolean> => {
    const done = { ...TUS_HEADERS, 'Upload-Offset': String(row.size), 'Upload-Length': String(row.size) };
    if (row.state === 'completing') {
      // The file is being checked: its bytes are all there, so HEAD is tus's to answer.
      if (exchange.method === 'HEAD') return false;
      throw new AppError(409, 'upload.error.completing', 'The upload is complete and its file is being checked', undefined, done);
    }
    if (exchange.method === 'HEAD') {
      exchange.send(200, { ...done, 'Cache-Control': 'no-store' }, null);
    } else if (exchange.method === 'DELETE') {
      // The item has the file: ending the upload only forgets it.
      await resumable.forget(row.id);
      exchange.send(204, TUS_HEADERS, null);
    } else {
      const { close } = body ? await body.dropRest() : { close: false };
      exchange.sendError(
        new AppError(409, 'upload.error.completed', 'The upload is complete', { field: 'Upload-Offset', constraint: `the upload holds all ${row.size} bytes` }),
        done,
        close,
      );
    }
    return true;
  };

  /** Writes tus's Response as our answer (errors in the §7 envelope), with Upload-Expires. */
  const answer = async (
    exchange: Exchange,
    response: Response,
    state: UploadRequest,
    incoming: WebBody | null,
    body: IncomingBody | null,
    rateHeaders: Record<string, string>,
  ) => {
    const headers: Record<string, string> = { ...rateHeaders };
    response.headers.forEach((value, name) => {
      if (!ANSWER_HEADERS_FROM_TUS.has(name)) return;
      headers[titleCase(name)] = value;
    });
    const { row } = state;
    if (row && row.state === 'uploading' && !state.discarded) headers['Upload-Expires'] = row.expires_at.toUTCString();
    else delete headers['Upload-Expires'];
    const text = await response.text();
    // A body tus did not read to its end (an error before or while reading) is dropped first, so
    // the client reads this answer.
    const { close } = body ? await body.dropRest() : { close: false };
    if (response.status < 400) {
      exchange.send(response.status, headers, exchange.method === 'HEAD' || !text ? null : text, close);
      return;
    }
    const error = incoming?.failure() ?? state.error ?? tusTextError(response.status, text);
    if (error.code === 'upload.error.offset_mismatch' && row) {
      const offset = await resumable.offsetOf(row.id);
      if (offset !== null) headers['Upload-Offset'] = String(offset);
    }
    exchange.sendError(error, headers, close);
  };

  uws.any(RESUMABLE_PATH, (res, req) => handle(res, req, null));
  uws.any(UPLOAD_ROUTE, (res, req) => handle(res, req, req.getParameter(0) ?? ''));
}

/** What OPTIONS tells a tus client (CONTRACT §24). */
function discoveryHeaders(maxSize: number, extensions: string[]): Record<string, string> {
  return {
    'Tus-Resumable': TUS_RESUMABLE,
    'Tus-Version': TUS_VERSION.join(','),
    'Tus-Extension': extensions.join(','),
    'Tus-Max-Size': String(maxSize),
  };
}

/** tus's answer headers that reach the client; its CORS headers give way to the service's own. */
const ANSWER_HEADERS_FROM_TUS = new Set(['tus-resumable', 'upload-offset', 'upload-length', 'upload-metadata', 'upload-expires', 'location', 'cache-control']);

const titleCase = (name: string) => name.replace(/(^|-)([a-z])/g, (m) => m.toUpperCase());

function requestHeaders(headers: Record<string, string>): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    // The body's framing is uWS's business; the Request has a stream.
    if (name === 'transfer-encoding' || name === 'connection') continue;
    try {
      out.set(name, value);
    } catch {
      // A value fetch's Headers refuses (bytes it cannot carry): the client's header is wrong.
      throw invalidHeader(name);
    }
  }
  return out;
}
