// The public surface of src/sms/: what other domains and the doors use of it.
export type { SmsProvider, SmsPurpose } from './provider.js';
