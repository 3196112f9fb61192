// Outbound SMS behind one interface, chosen by SMS_PROVIDER (createSmsProvider):
// - `outbox` (default): each message appended as one JSON line to the outbox file (CONTRACT §3);
// - `http`: each message POSTed as JSON to an SMS gateway (SMS_HTTP_URL, bearer SMS_HTTP_TOKEN).
// A message's body may hold a one-time code: no error raised here carries the body, the code or
// the gateway's answer, so whatever logs an error logs none of them.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';

export type SmsPurpose = 'register' | 'send-otp' | 'forgot-password' | 'two-factor';
/** Messages that carry no code: alerts to the account holder (a login from a new device). */
export type SmsAlertPurpose = 'login-alert';

interface SmsMessage {
  to: string;
  purpose: SmsPurpose | SmsAlertPurpose;
  /** The one-time code of a code message; absent in an alert. */
  code?: string;
  body: string;
}

export interface SmsProvider {
  readonly medium: 'SMS';
  send(message: SmsMessage): Promise<void>;
}

export class OutboxSmsProvider implements SmsProvider {
  readonly medium = 'SMS' as const;

  constructor(private readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  }

  async send(message: SmsMessage): Promise<void> {
    const line = JSON.stringify({ ...message, at: new Date().toISOString() }) + '\n';
    // One appendFile call per line keeps lines whole even with concurrent senders.
    await fs.promises.appendFile(this.file, line, { encoding: 'utf8', mode: 0o600 });
  }
}

/** The longest one gateway request may take before the send fails. */
const GATEWAY_TIMEOUT_MS = 10_000;

/**
 * An HTTP SMS gateway: `POST url` with `Authorization: Bearer <token>` and the JSON body
 * `{ "to": "+84…", "message": "…", "purpose": "register" }`. Any 2xx is delivered; anything else
 * (another status, a network error, no answer within GATEWAY_TIMEOUT_MS) fails the send with an
 * error naming the status or the failure only. The code is never sent apart from the message
 * text, and never logged.
 */
export class HttpSmsProvider implements SmsProvider {
  readonly medium = 'SMS' as const;

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  async send(message: SmsMessage): Promise<void> {
    let status: number;
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ to: message.to, message: message.body, purpose: message.purpose }),
        signal: AbortSignal.timeout(GATEWAY_TIMEOUT_MS),
        redirect: 'error',
      });
      status = res.status;
      // The answer is read and dropped: a gateway may echo the message (and its code) back.
      await res.arrayBuffer().catch(() => undefined);
    } catch (err) {
      const name = err instanceof Error ? err.name : 'Error';
      // No `cause`: the error names the failure only, never the gateway's address or the message.
      // eslint-disable-next-line preserve-caught-error
      throw new Error(`SMS gateway ${name === 'TimeoutError' || name === 'AbortError' ? 'did not answer in time' : 'could not be reached'}`);
    }
    if (status < 200 || status > 299) throw new Error(`SMS gateway answered ${status}`);
  }
}

/** The provider SMS_PROVIDER names (loadConfig has checked that `http` comes with its URL and token). */
export function createSmsProvider(config: Config): SmsProvider {
  if (config.SMS_PROVIDER === 'http') {
    if (config.SMS_HTTP_URL === undefined || config.SMS_HTTP_TOKEN === undefined) throw new Error('SMS_PROVIDER=http needs SMS_HTTP_URL and SMS_HTTP_TOKEN');
    return new HttpSmsProvider(config.SMS_HTTP_URL, config.SMS_HTTP_TOKEN);
  }
  return new OutboxSmsProvider(config.smsOutboxFile);
}
