// Any thrown value as an AppError, and a zod failure as the 400 naming the first bad field: the
// one mapping both doors use (REST's error envelope in http/envelope.ts, Socket.IO's error ack in
// realtime/transport/ack.ts), so an error reads the same whichever door it came through.
import type { z } from 'zod';
import { AppError } from './errors.js';
import { isUnavailableError, serviceUnavailable } from './unavailable.js';

/** A zod failure on `part` (body, query, params, headers) as a 400 naming the first bad field. */
export function validationError(part: string, error: z.ZodError): AppError {
  const issue = error.issues[0];
  const field = issue.path.length ? issue.path.map(String).join('.') : part;
  let constraint: string = issue.code;
  if (issue.code === 'invalid_type') constraint = `expected ${issue.expected}`;
  else if (issue.code === 'too_small' || issue.code === 'too_big') constraint = issue.message;
  else if (issue.code === 'invalid_value') constraint = issue.message;
  else if (issue.code === 'unrecognized_keys') constraint = `unknown field ${issue.keys.join(', ')}`;
  else if (issue.message) constraint = issue.message;
  const unknownField = issue.code === 'unrecognized_keys' ? `${issue.path.length ? field + '.' : ''}${issue.keys[0]}` : field;
  return new AppError(400, 'validation.error.invalid_' + part, `Invalid ${part}: ${unknownField} ${constraint}`.trim(), {
    field: unknownField,
    constraint,
  });
}

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isUnavailableError(error)) return serviceUnavailable();
  return new AppError(500, 'server.error.internal', 'An unexpected error occurred');
}

/**
 * States the service is in on purpose or because of a dependency, not faults of its own code:
 * a platform an operator switched off is `info`; an outage of the database, Redis, the storage
 * or an upstream platform or SMS gateway is `warn` (operators watch it, nobody fixes the code).
 */
const EXPECTED_FAILURE_LEVELS: ReadonlyMap<string, 'info' | 'warn'> = new Map([
  ['publishing.error.unavailable', 'info'],
  ['service.error.unavailable', 'warn'],
  ['media.error.storage_unavailable', 'warn'],
  ['publishing.error.upstream', 'warn'],
  ['sms.error.delivery_failed', 'warn'],
]);

/** The level a failed request or event is logged at: none for a refusal (4xx), `error` for a fault. */
export function failureLogLevel(error: AppError): 'info' | 'warn' | 'error' | null {
  if (error.status < 500) return null;
  return EXPECTED_FAILURE_LEVELS.get(error.code) ?? 'error';
}
