import pino, { type Logger } from 'pino';

export type { Logger };

// JSON logs; pretty output only when a person is watching a terminal.
export function createLogger(level: string): Logger {
  const pretty = process.stdout.isTTY && level !== 'silent';
  return pino({
    level,
    // Never let secrets reach the log even if a caller logs a whole object.
    redact: {
      paths: [
        'password',
        '*.password',
        'new_password',
        '*.new_password',
        'old_password',
        '*.old_password',
        'current_password',
        '*.current_password',
        'otp',
        '*.otp',
        'code',
        '*.code',
        'confirmation_code',
        '*.confirmation_code',
        'refresh_token',
        '*.refresh_token',
        'authorization',
        '*.authorization',
        'card_token',
        '*.card_token',
        'payment_token',
        '*.payment_token',
      ],
      censor: '[redacted]',
    },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true } } } : {}),
  });
}
