// What every domain service is built from: configuration, storage, logging, the event bus, the
// outbound SMS provider and the media store. Nothing here knows about HTTP or sockets.
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/client.js';
import type { DomainEventBus } from './event-bus.js';
import type { Logger } from './shared/logger.js';
import type { MediaStore } from './shared/media-store.js';
import type { SmsProvider } from './sms/index.js';

export interface AppContext {
  config: Config;
  database: DatabaseHandle;
  log: Logger;
  events: DomainEventBus;
  sms: SmsProvider;
  /** Where media bytes live (src/media/storage/). */
  media: MediaStore;
}
