// The success envelope and the error envelope of SPEC §7, and the mapping of any thrown value
// to an error envelope (no stack traces or SQL ever reach a client).
import type { AppError, ErrorDetails } from '../src/shared/errors.js';

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

// The mapping of thrown values and zod failures is shared with the Socket.IO door (src/shared/error-mapping.ts).
export { validationError, toAppError } from '../src/shared/error-mapping.js';
