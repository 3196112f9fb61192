// One wrapper for every client event with an ack: validates the payload with zod, runs the
// domain operation, and answers `{ok:true[, data]}` or `{ok:false, error_code, message}`.
// Unexpected errors are logged and answered as `server.error.internal` (no internals leak).
import type { z } from 'zod';
import { AppError } from '../src/shared/errors.js';
import { storableText } from '../src/shared/storable-text.js';
import { isUnavailableError, serviceUnavailable } from '../src/shared/unavailable.js';
import type { Logger } from '../src/shared/logger.js';
import { validationError } from '../http/envelope.js';
import type { Ack, AckError } from './events.js';

function toAckError(err: unknown, log: Logger): AckError {
  if (!(err instanceof AppError) && isUnavailableError(err)) err = serviceUnavailable();
  if (err instanceof AppError) {
    return { ok: false, error_code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
  }
  log.error({ err }, 'socket event failed');
  return { ok: false, error_code: 'server.error.internal', message: 'An unexpected error occurred' };
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
