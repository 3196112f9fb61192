// The two halves of answering a client event: its payload checked like a REST body (storable
// text, then the zod schema), and an error turned into the ack `{ok:false, error_code, message}`.
// Unexpected errors are logged and answered as `server.error.internal` (no internals leak).
import type { z } from 'zod';
import { storableText } from '../../src/shared/storable-text.js';
import type { Logger } from '../../src/shared/logger.js';
import { failureLogLevel, toAppError, validationError } from '../../src/shared/error-mapping.js';
import type { ErrorDetails } from '../../src/shared/errors.js';

/** The ack of a client event: `{ok: true}` (with `data` when the event's ack has a schema), or the error. */
export interface AckError {
  ok: false;
  error_code: string;
  message: string;
  details?: ErrorDetails;
}
export type AckResult<T = undefined> = ([T] extends [undefined] ? { ok: true } : { ok: true; data: T }) | AckError;
export type Ack<T = undefined> = (result: AckResult<T>) => void;

/** The same mapping as REST answers (http/envelope.ts): an AppError as it is, an outage as 503, the rest as 500. */
export function toAckError(err: unknown, log: Logger): AckError {
  const appError = toAppError(err);
  const level = failureLogLevel(appError);
  if (level === 'error') log.error({ err }, 'socket event failed');
  else if (level) log[level]({ code: appError.code }, 'socket event refused');
  return { ok: false, error_code: appError.code, message: appError.message, ...(appError.details ? { details: appError.details } : {}) };
}

/** The payload as `schema` reads it; throws the 400 AppError a REST body would get. */
export function parsePayload<S extends z.ZodType>(schema: S, payload: unknown): z.output<S> {
  const parsed = schema.safeParse(storableText(payload, 'payload'));
  if (!parsed.success) throw validationError('payload', parsed.error);
  return parsed.data;
}
