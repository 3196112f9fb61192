// A request body from uWebSockets.js as a web ReadableStream (what a fetch-style handler such as
// @tus/server's reads), with backpressure: uWS pushes chunks, the stream queues at most
// HIGH_WATER_BYTES, and past that the socket is paused until the reader pulls again, so a large
// upload is never held in memory. A client that leaves mid-body ends the stream normally: the
// reader still gets every chunk that arrived (a resumable upload keeps them).
import type { IncomingBody } from './body.js';
import type { AppError } from '../src/shared/errors.js';

const HIGH_WATER_BYTES = 1024 * 1024;

export interface WebBody {
  stream: ReadableStream<Uint8Array>;
  /** Why the body stopped early, other than the client leaving (e.g. over its size limit). */
  failure(): AppError | null;
}

export function webBody(body: IncomingBody): WebBody {
  let failure: AppError | null = null;
  let flow: { resume: () => void } | null = null;
  let over = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        flow = body.stream(
          (chunk, isLast) => {
            if (over) return true;
            if (chunk.length) controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
            if (isLast) {
              over = true;
              controller.close();
              return true;
            }
            return (controller.desiredSize ?? 0) > 0;
          },
          (error) => {
            if (over) return;
            over = true;
            if (error.code === 'request.error.aborted') {
              controller.close();
              return;
            }
            failure = error;
            controller.error(error);
          },
        );
      },
      pull() {
        flow?.resume();
      },
      cancel() {
        // The reader stopped early; what is left is dropped by the answer (IncomingBody.dropRest).
        over = true;
      },
    },
    { highWaterMark: HIGH_WATER_BYTES, size: (chunk) => chunk.byteLength },
  );
  return { stream, failure: () => failure };
}
