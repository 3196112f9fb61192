// The success envelope and the error envelope of SPEC §7, and the mapping of any thrown value
// to an error envelope (no stack traces or SQL ever reach a client).
import { z } from 'zod';
import { AppError, type ErrorDetails } from '../src/shared/errors.js';
import { isUnavailableError, serviceUnavailable } from '../src/shared/unavailable.js';

export interface ErrorBody {
  success: false;
  error_code: string;
  message: string;
  details?: ErrorDetails;
  timestamp: string;
}

export function successBody(data: unknown, message = 'OK'): { success: true; message: string; data: unknown } {
  return { success: true, message, data: data ?? null };
}

export function errorBody(error: AppError): ErrorBody {
  return {
    success: false,
    error_code: error.code,
    message: error.message,
    ...(error.details ? { details: error.details } : {}),
    timestamp: new Date().toISOString(),
  };
}

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
