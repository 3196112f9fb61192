// Reading request bodies from uWebSockets.js. uWS hands body chunks to `onData` as ArrayBuffers it
// reuses after the callback returns, so each chunk is copied. The reader is attached synchronously
// in the request handler (uWS drops data that arrives with no handler) and queues chunks until a
// consumer attaches; `pause()` stops the socket reading meanwhile (used for uploads, so nothing is
// streamed to disk before the caller is authenticated).
import type { HttpResponse } from 'uWebSockets.js';
import { AppError } from '../src/shared/errors.js';

export const bodyTooLarge = (limit: number) =>
  new AppError(413, 'request.error.body_too_large', `Request body exceeds ${limit} bytes`, {
    field: 'body',
    constraint: `at most ${limit} bytes`,
  });

/** Whether the request announces a body (a non-zero Content-Length, or chunked). */
export function hasBody(headers: Record<string, string>): boolean {
  return (headers['content-length'] !== undefined && headers['content-length'] !== '0') || headers['transfer-encoding'] !== undefined;
}

type Sink = (chunk: Buffer, isLast: boolean) => void;

/**
 * A request refused before its body was read to the end is answered at once, and the rest of the
 * body is still read and dropped, so a client that writes its whole body before reading (fetch,
 * most SDKs) reads the 4xx instead of EPIPE. uWS goes on reading a body of known length after the
 * answer (and the connection stays usable); a body of unknown length (chunked) is read here up to
 * these bounds before the answer, and the connection is closed if they are passed.
 */
const DISCARD_MAX_BYTES = 32 * 1024 * 1024;
const DISCARD_MAX_MS = 10_000;
const DISCARD_IDLE_MS = 1_000;

export class IncomingBody {
  private queue: Buffer[] = [];
  private ended = false;
  private received = 0;
  private sink: Sink | null = null;
  private failure: AppError | null = null;
  private onFailure: ((err: AppError) => void) | null = null;
  /** The last chunk arrived, or the client left: nothing more will come. */
  private inputOver = false;
  // uWS's resume() on a socket that is not paused stalls the next request on the connection, so
  // pausing and resuming both go through pauseSocket/resumeSocket, which track the state.
  private socketPaused = false;
  private discarding = false;
  private discarded = 0;
  private onDiscardChunk: (() => void) | null = null;

  constructor(
    private readonly res: HttpResponse,
    private readonly limit: number,
    /** Uploads start paused: nothing is read before the caller is authenticated. */
    paused: boolean,
    /** Content-Length, or null for a chunked body. */
    private readonly declaredLength: number | null,
  ) {
    res.onData((ab, isLast) => this.receive(ab, isLast));
    if (paused) this.pauseSocket();
  }

  private pauseSocket(): void {
    if (this.socketPaused) return;
    this.socketPaused = true;
    this.res.pause();
  }

  private resumeSocket(): void {
    if (!this.socketPaused) return;
    this.socketPaused = false;
    this.res.resume();
  }

  private receive(ab: ArrayBuffer, isLast: boolean): void {
    if (isLast) this.inputOver = true;
    if (this.discarding) {
      this.discarded += ab.byteLength;
      this.onDiscardChunk?.();
      return;
    }
    if (this.failure) return;
    const chunk = Buffer.from(new Uint8Array(ab));
    this.received += chunk.length;
    if (this.received > this.limit) {
      this.failure = bodyTooLarge(this.limit);
      this.onFailure?.(this.failure);
      return;
    }
    if (isLast) this.ended = true;
    if (this.sink) this.sink(chunk, isLast);
    else this.queue.push(chunk);
  }

  /**
   * The client went away before the body ended: whoever waits for the rest (readAll, a multipart
   * parser) fails now instead of waiting forever, so the request leaves the in-flight count and
   * partial uploads are removed.
   */
  abort(): void {
    this.inputOver = true;
    this.onDiscardChunk?.();
    if (this.failure || this.ended) return;
    this.failure = new AppError(400, 'request.error.aborted', 'The client closed the connection before the body ended');
    this.onFailure?.(this.failure);
  }

  /**
   * Readies the connection for an answer sent before the body was read (to its end, or at all):
   * the socket is read again and the rest is dropped. Resolves with whether the connection must
   * close after the answer (the rest could not be read within bounds); a chunked body is read
   * here first, up to the bounds. A body that already arrived whole only has its socket resumed
   * (an upload refused before reading would otherwise leave the keep-alive connection paused).
   */
  async dropRest(): Promise<{ close: boolean }> {
    if (this.inputOver) {
      this.resumeSocket();
      return { close: false };
    }
    this.queue = [];
    this.discarding = true;
    this.discarded = this.received;
    if (this.declaredLength !== null) {
      if (this.declaredLength > DISCARD_MAX_BYTES) return { close: true };
      this.resumeSocket();
      return { close: false };
    }
    this.resumeSocket();
    const readToEnd = await new Promise<boolean>((resolve) => {
      let idle: NodeJS.Timeout;
      const total = setTimeout(() => settle(false), DISCARD_MAX_MS);
      const settle = (ended: boolean) => {
        clearTimeout(total);
        clearTimeout(idle);
        this.onDiscardChunk = null;
        resolve(ended);
      };
      this.onDiscardChunk = () => {
        if (this.inputOver) settle(true);
        else if (this.discarded > DISCARD_MAX_BYTES) settle(false);
        else {
          clearTimeout(idle);
          idle = setTimeout(() => settle(false), DISCARD_IDLE_MS);
        }
      };
      idle = setTimeout(() => settle(false), DISCARD_IDLE_MS);
    });
    return { close: !readToEnd };
  }

  /** Attaches the consumer; queued chunks are replayed first. */
  private attach(sink: Sink, onFailure: (err: AppError) => void): void {
    if (this.failure) {
      onFailure(this.failure);
      return;
    }
    this.onFailure = onFailure;
    this.sink = sink;
    const queued = this.queue;
    this.queue = [];
    queued.forEach((chunk, i) => sink(chunk, this.ended && i === queued.length - 1));
    if (this.ended && queued.length === 0) sink(Buffer.alloc(0), true);
    this.resumeSocket();
  }

  /** The whole body (bounded by the limit). */
  readAll(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      this.attach((chunk, isLast) => {
        if (chunk.length) parts.push(chunk);
        if (isLast) resolve(Buffer.concat(parts));
      }, reject);
    });
  }

  /** Streams chunks to `write`, which returns false to ask for a pause until `resume` is called. */
  stream(write: (chunk: Buffer, isLast: boolean) => boolean, onFailure: (err: AppError) => void): { resume: () => void } {
    let pausedByConsumer = false;
    this.attach((chunk, isLast) => {
      if (!write(chunk, isLast) && !isLast && !pausedByConsumer) {
        pausedByConsumer = true;
        this.pauseSocket();
      }
    }, onFailure);
    return {
      resume: () => {
        if (pausedByConsumer) {
          pausedByConsumer = false;
          this.resumeSocket();
        }
      },
    };
  }
}
