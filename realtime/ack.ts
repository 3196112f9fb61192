// One wrapper for every client event with an ack: validates the payload with zod, runs the
// domain operation, and answers `{ok:true[, data]}` or `{ok:false, error_code, message}`.
// Unexpected errors are logged and answered as `server.error.internal` (no internals leak).
import type { z } from 'zod';
import { storableText } from '../src/shared/storable-text.js';
import type { Logger } from '../src/shared/logger.js';
import { toAppError, validationError } from '../http/envelope.js';
import type { Ack, AckError } from './events.js';

/** The same mapping as REST answers (http/envelope.ts): an AppError as it is, an outage as 503, the rest as 500. */
function toAckError(err: unknown, log: Logger): AckError {
  const appError = toAppError(err);
  if (appError.status >= 500) log.error({ err }, 'socket event failed');
  return { ok: false, error_code: appError.code, message: appError.message, ...(appError.details ? { details: appError.details } : {}) };
}

export function withAck<S extends z.ZodType, T>(log: Logger, schema: S, run: (payload: z.infer<S>) => Promise<T>) {
  return (payload: unknown, ack?: unknown): void => {
    const reply = (typeof ack === 'function' ? ack : () => undefined) as Ack<T>;
    let storable: unknown;
    try {
      storable = storableText(payload, 'payload');
    } catch (err) {
      reply(toAckError(err, log));
      return;
    }
    const parsed = schema.safeParse(storable);
    if (!parsed.success) {
      reply(toAckError(validationError('payload', parsed.error), log));
      return;
    }
    run(parsed.data).then(
      (data) => reply((data === undefined ? { ok: true } : { ok: true, data }) as Parameters<Ack<T>>[0]),
      (err) => reply(toAckError(err, log)),
    );
  };
}
