// Outbound SMS behind one interface. The default provider appends each message as one JSON line
// to the outbox file (CONTRACT §3); a real gateway plugs in by implementing SmsProvider.
import fs from 'node:fs';
import path from 'node:path';

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
