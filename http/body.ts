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

type Sink = (chunk: Buffer, isLast: boolean) => void;

export class IncomingBody {
  private queue: Buffer[] = [];
  private ended = false;
  private received = 0;
  private sink: Sink | null = null;
  private failure: AppError | null = null;
  private onFailure: ((err: AppError) => void) | null = null;

  constructor(
    private readonly res: HttpResponse,
    private readonly limit: number,
    private readonly paused: boolean,
  ) {
    res.onData((ab, isLast) => this.receive(ab, isLast));
    if (paused) res.pause();
  }

  /** True once the last chunk arrived (the connection can be reused after responding). */
  isComplete(): boolean {
    return this.ended && !this.failure;
  }

  private receive(ab: ArrayBuffer, isLast: boolean): void {
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
    if (this.failure || this.ended) return;
    this.failure = new AppError(400, 'request.error.aborted', 'The client closed the connection before the body ended');
    this.onFailure?.(this.failure);
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
    if (this.paused) this.res.resume();
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
        this.res.pause();
      }
    }, onFailure);
    return {
      resume: () => {
        if (pausedByConsumer) {
          pausedByConsumer = false;
          this.res.resume();
        }
      },
    };
  }
}
