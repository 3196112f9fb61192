// One error class for the whole service: a stable dotted code, the HTTP-like status it maps to,
// and optional details naming the field at fault. Domain code throws these; the HTTP and
// Socket.IO layers turn them into the error envelope of SPEC §7.

export interface ErrorDetails {
  field: string;
  constraint: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetails,
    /** Extra response headers (e.g. Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (code: string, message: string, details?: ErrorDetails) => new AppError(400, code, message, details);
export const unauthorized = (code: string, message: string) => new AppError(401, code, message);
export const forbidden = (code: string, message: string) => new AppError(403, code, message);
export const notFound = (code: string, message: string, details?: ErrorDetails) => new AppError(404, code, message, details);
export const conflict = (code: string, message: string, details?: ErrorDetails) => new AppError(409, code, message, details);
export const unprocessable = (code: string, message: string, details?: ErrorDetails) => new AppError(422, code, message, details);
export const tooManyRequests = (code: string, message: string, headers?: Record<string, string>) => new AppError(429, code, message, undefined, headers);

const hasSqlState = (error: unknown, code: string): boolean => (error as { code?: unknown } | undefined)?.code === code;

/** PostgreSQL unique_violation (same code from either driver). */
export const isUniqueViolation = (error: unknown): boolean => hasSqlState(error, '23505');

/** PostgreSQL foreign_key_violation: the row a write was to reference is gone. */
export const isForeignKeyViolation = (error: unknown): boolean => hasSqlState(error, '23503');
